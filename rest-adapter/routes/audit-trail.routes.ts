import { AuditTrailQuery } from '../../domain/audit/audit-trail.service';
import { defineRoutes, routesWith } from '../route';
import * as C from '../schemas/compliance';

const route = routesWith({ envelope: 'integration', limiter: 'plan', tag: 'audit-trail', permission: 'read:audit-trail' } as const);

/** The append-only, hash-chained audit trail of every change (21 CFR 11.10(e)). */
export const auditTrailRoutes = defineRoutes([
  route({
    method: 'get',
    path: '/v1/audit-trail',
    operationId: 'listAuditTrail',
    response: C.AuditTrailPage,
    summary:
      'Trail entries, newest first: time, key id, principal, action, before/after of the changed fields, hashes. Filters: entity, id, key, action, from, to',
    request: { query: AuditTrailQuery },
    handle: ({ ctx, services, query }) => services.auditTrail.list(ctx, query),
  }),
  route({
    method: 'get',
    path: '/v1/audit-trail/verify',
    operationId: 'verifyAuditTrail',
    response: C.AuditVerification,
    summary: 'Recomputes every hash of the chain: intact or the first broken link; unsealed rows are counted apart',
    handle: ({ ctx, services }) => services.auditTrail.verify(ctx),
  }),
]);
