import { z } from 'zod';
import type { AuditTrailQuery } from '../../domain/audit/audit-trail.service';
import { procedure, router } from '../init';

/** Inputs are typed for clients but validated by the domain, so every transport reports the same codes. */
const body = <T>() => z.custom<T>(() => true);

export const auditTrailRouter = router({
  list: procedure.input(body<AuditTrailQuery | undefined>()).query(({ ctx, input }) => ctx.services.auditTrail.list(ctx.domain, input ?? {})),
  verify: procedure.query(({ ctx }) => ctx.services.auditTrail.verify(ctx.domain)),
});
