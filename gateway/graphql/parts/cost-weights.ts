import { getFramework, SUPPORTED_FRAMEWORKS } from '../../../domain/compliance/catalogue';

/**
 * What a field costs in the list-aware cost (parts/cost.ts), where it is not the default of one unit
 * per field and LIST_COST's list sizes. The unit is the gateway CPU of one field of one row of a
 * requirements page read from the database; the weights below were measured in that unit by
 * scripts/measure-graphql-weights.ts (basis and figures in docs/decisions.md, "GraphQL cost weights").
 */
export interface FieldCost {
  /** Units for the field itself (each time it is resolved); 1 when not given. */
  weight?: number;
  /** Items assumed for a list field without a `limit`; LIST_COST.defaultListSize when not given. */
  listSize?: number;
}

export interface CostWeights {
  /** By field coordinate (`Type.field`). */
  fields: Readonly<Record<string, FieldCost>>;
  /** A weight for every field of a type (objects read whole from a result computed by their root). */
  types: Readonly<Record<string, number>>;
}

/** Clauses of the largest framework of the catalogue: the most `clauses` a traceability matrix has. */
export const MAX_CLAUSES = Math.max(...SUPPORTED_FRAMEWORKS.map((f) => getFramework(f).clauses.length));

/**
 * Building the traceability matrix (two queries and one pass in memory) for the reference data set of
 * the largest framework: MAX_CLAUSES clauses, 250 requirements, 125 findings. Measured: see decisions.
 */
export const TRACEABILITY_BUILD_UNITS = 11_480;

/** One field of the built matrix: a property read and its JSON, no resolver, no query. Measured. */
export const TRACE_FIELD_UNITS = 0.28;

const traceTypes = ['TraceabilityMatrix', 'TraceSummary', 'TraceClause', 'TraceGap', 'TraceRequirement', 'TraceValidation', 'TraceFinding', 'TraceEvidence'];

export const COST_WEIGHTS: CostWeights = {
  fields: {
    'Query.traceability': { weight: TRACEABILITY_BUILD_UNITS },
    // Lists of the matrix, sized as in the reference data set (means rounded up), the clauses exactly.
    'TraceabilityMatrix.clauses': { weight: TRACE_FIELD_UNITS, listSize: MAX_CLAUSES },
    'TraceabilityMatrix.gaps': { weight: TRACE_FIELD_UNITS, listSize: MAX_CLAUSES },
    'TraceClause.requirements': { weight: TRACE_FIELD_UNITS, listSize: 11 },
    'TraceabilityMatrix.unmappedRequirements': { weight: TRACE_FIELD_UNITS, listSize: 10 },
    'TraceabilityMatrix.unlinkedFindings': { weight: TRACE_FIELD_UNITS, listSize: 12 },
    'TraceRequirement.openFindings': { weight: TRACE_FIELD_UNITS, listSize: 1 },
    'TraceRequirement.resolvedFindings': { weight: TRACE_FIELD_UNITS, listSize: 1 },
    'TraceRequirement.evidence': { weight: TRACE_FIELD_UNITS, listSize: 3 },
  },
  types: Object.fromEntries(traceTypes.map((t) => [t, TRACE_FIELD_UNITS])),
};
