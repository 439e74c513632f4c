import type { GateQuery } from '../../domain/compliance/gate/gate.service';
import type { TraceabilityQuery } from '../../domain/compliance/traceability/traceability.service';
import { body, procedure, router } from '../init';


export const assuranceRouter = router({
  traceability: procedure.input(body<Omit<TraceabilityQuery, 'format'>>()).query(({ ctx, input }) => ctx.services.traceability.matrix(ctx.domain, input)),
  /** A mutation only so the file travels in a POST body (a query's input is in the URL); it changes nothing. */
  verifyReport: procedure
    .input(body<{ reportId: string; contentBase64: string }>())
    .mutation(({ ctx, input }) => ctx.services.reports.verifyCompliance(ctx.domain, input?.reportId, { base64: input?.contentBase64 })),
  signReport: procedure
    .input(body<{ reportId: string; meaning: 'reviewed' | 'approved' }>())
    .mutation(({ ctx, input }) => ctx.services.reports.signCompliance(ctx.domain, input?.reportId, { meaning: input?.meaning })),
  gate: procedure.input(body<GateQuery>()).query(({ ctx, input }) => ctx.services.gate.evaluate(ctx.domain, input)),
});
