import { GateQuery } from '../../domain/compliance/gate/gate.service';
import { TraceabilityQuery, traceabilityCsv } from '../../domain/compliance/traceability/traceability.service';
import { defineRoutes, routesWith } from '../route';
import * as C from '../schemas/compliance';

const route = routesWith({ envelope: 'integration', limiter: 'plan', tag: 'assurance' } as const);

/** `?format=` wins; otherwise an Accept header that prefers text/csv over JSON gets CSV. */
function wantsCsv(format: unknown, accept: string | undefined): boolean {
  if (format === 'csv') return true;
  if (format !== undefined) return false;
  if (!accept) return false;
  const quality = (type: string) => {
    for (const part of accept.split(',')) {
      const [media, ...params] = part.trim().toLowerCase().split(';');
      if (media.trim() !== type) continue;
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return q ? Number(q.slice(2)) || 0 : 1;
    }
    return 0;
  };
  const csv = quality('text/csv');
  return csv > 0 && csv >= quality('application/json');
}

/** What an auditor or a delivery pipeline asks of the compliance records: traceability and the release gate. */
export const assuranceRoutes = defineRoutes([
  route({
    method: 'get',
    path: '/v1/compliance/traceability',
    operationId: 'complianceTraceability',
    summary:
      'Traceability matrix of a framework: every catalogue clause → requirements mapped to it → latest validation → open and resolved findings → evidence; uncovered clauses listed as gaps. JSON, or CSV with ?format=csv or Accept: text/csv. Findings need read:audits as well',
    permission: 'read:compliance',
    request: { query: TraceabilityQuery },
    raw: true,
    produces: ['application/json', 'text/csv'],
    producesJson: C.TraceabilityMatrix,
    responses: {
      200: {
        description:
          'The matrix (JSON), or the same content as CSV (text/csv): one row per clause and requirement (`row_type` clause; a gap has no requirement), then one per requirement mapped to no clause (`unmapped_requirement`) and per finding linked to no requirement (`unlinked_finding`)',
      },
      400: { description: 'VALIDATION_ERROR, or INVALID_FRAMEWORK with details.supportedFrameworks' },
    },
    handle: async ({ ctx, services, query, req, res }) => {
      const matrix = await services.traceability.matrix(ctx, query);
      res.vary('Accept');
      if (wantsCsv(query.format, req.headers.accept)) {
        const csv = traceabilityCsv(matrix);
        res
          .status(200)
          .set({
            'Content-Type': 'text/csv; charset=utf-8',
            'Content-Disposition': `attachment; filename="traceability-${matrix.framework}.csv"`,
            'Cache-Control': 'private, no-store',
          })
          .end(csv);
        return;
      }
      res.status(200).json(matrix);
    },
  }),
  route({
    method: 'get',
    path: '/v1/compliance/gate',
    operationId: 'complianceGate',
    response: C.GateResult,
    summary:
      'Release gate: pass or fail with the reasons. Fails on an open critical finding, a score below minScore (default 70) or more open findings than maxOpenFindings (when given). 200 either way',
    permission: 'read:compliance',
    request: { query: GateQuery },
    responses: { 400: { description: 'VALIDATION_ERROR, or INVALID_FRAMEWORK with details.supportedFrameworks' } },
    handle: ({ ctx, services, query }) => services.gate.evaluate(ctx, query),
  }),
]);
