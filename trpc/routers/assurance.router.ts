import { z } from 'zod';
import { GateQuery } from '../../domain/compliance/gate/gate.service';
import { SignReportInput } from '../../domain/compliance/reports/report.service';
import { TraceabilityQuery } from '../../domain/compliance/traceability/traceability.service';
import { inputOf, procedure, router } from '../init';

/** Traceability, report verification and signatures, and the release gate. */
export const assuranceRouter = router({
  traceability: procedure
    .input(inputOf(TraceabilityQuery.omit({ format: true })))
    .query(({ ctx, input }) => ctx.services.traceability.matrix(ctx.domain, input)),
  /** A mutation only so the file travels in a POST body (a query's input is in the URL); it changes nothing. */
  verifyReport: procedure
    .input(inputOf(z.object({ reportId: z.string(), contentBase64: z.string() })))
    .mutation(({ ctx, input }) => ctx.services.reports.verifyCompliance(ctx.domain, input?.reportId, { base64: input?.contentBase64 })),
  signReport: procedure
    .input(inputOf(SignReportInput.extend({ reportId: z.string() })))
    .mutation(({ ctx, input }) => ctx.services.reports.signCompliance(ctx.domain, input?.reportId, { meaning: input?.meaning })),
  gate: procedure.input(inputOf(GateQuery)).query(({ ctx, input }) => ctx.services.gate.evaluate(ctx.domain, input)),
});
