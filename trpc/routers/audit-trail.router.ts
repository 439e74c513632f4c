import type { AuditTrailQuery } from '../../domain/audit/audit-trail.service';
import { body, procedure, router } from '../init';


export const auditTrailRouter = router({
  list: procedure.input(body<AuditTrailQuery | undefined>()).query(({ ctx, input }) => ctx.services.auditTrail.list(ctx.domain, input ?? {})),
  verify: procedure.query(({ ctx }) => ctx.services.auditTrail.verify(ctx.domain)),
});
