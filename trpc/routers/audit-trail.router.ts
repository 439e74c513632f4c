import { AuditTrailQuery } from '../../domain/audit/audit-trail.service';
import { inputOf, procedure, router } from '../init';

/** The append-only audit trail and its chain check. */
export const auditTrailRouter = router({
  list: procedure.input(inputOf(AuditTrailQuery.optional())).query(({ ctx, input }) => ctx.services.auditTrail.list(ctx.domain, input ?? {})),
  verify: procedure.query(({ ctx }) => ctx.services.auditTrail.verify(ctx.domain)),
});
