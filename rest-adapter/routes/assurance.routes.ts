import { GateQuery } from '../../domain/compliance/gate/gate.service';
import { defineRoutes, type RouteSpec } from '../route';

const route = (r: Omit<RouteSpec, 'envelope' | 'limiter' | 'tag'>): RouteSpec => ({ envelope: 'integration', limiter: 'plan', tag: 'assurance', ...r });

/** What an auditor or a delivery pipeline asks of the compliance records: the release gate. */
export const assuranceRoutes = defineRoutes([
  route({
    method: 'get',
    path: '/v1/compliance/gate',
    operationId: 'complianceGate',
    summary:
      'Release gate: pass or fail with the reasons. Fails on an open critical finding, a score below minScore (default 70) or more open findings than maxOpenFindings (when given). 200 either way',
    permission: 'read:compliance',
    request: { query: GateQuery },
    responses: { 400: { description: 'VALIDATION_ERROR, or INVALID_FRAMEWORK with details.supportedFrameworks' } },
    handle: ({ ctx, services, query }) => services.gate.evaluate(ctx, query),
  }),
]);
