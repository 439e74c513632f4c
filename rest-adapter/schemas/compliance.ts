import { z } from 'zod';
import { ComplianceLevel, FindingStatus, Framework, Instant, Priority, RequirementStatus, Severity, list, page } from './common';

export { RequirementStatus };

export const IssuedApiKey = z.object({
  id: z.string(),
  key: z.string().describe('The secret; shown only in this answer'),
  name: z.string(),
  permissions: z.array(z.string()),
  plan: z.enum(['standard', 'premium', 'enterprise']),
  expiresAt: Instant.nullable(),
  createdAt: Instant,
});
export const ApiKeyListing = z.object({
  id: z.string(),
  prefix: z.string().describe('First characters of the secret, to recognise the key'),
  name: z.string(),
  permissions: z.array(z.string()),
  plan: z.enum(['standard', 'premium', 'enterprise']),
  isAdmin: z.boolean(),
  issuedBy: z.string().nullable().describe('Id of the key that issued this one (`admin` for the configured admin key)'),
  createdAt: Instant,
  expiresAt: Instant.nullable(),
  lastUsedAt: Instant.nullable().describe('Updated at most every few seconds'),
  revokedAt: Instant.nullable(),
});
export const ApiKeyList = z.object({ data: z.array(ApiKeyListing) });
export const RevokedApiKey = z.object({ id: z.string(), revoked: z.boolean() });

const ValidationIssue = z.object({ ruleId: z.string(), severity: z.string(), field: z.string(), message: z.string() });
export const ValidationResult = z.object({
  valid: z.boolean(),
  score: z.number(),
  issues: z.array(ValidationIssue),
  suggestions: z.array(z.string()),
  complianceMapping: z.record(z.string(), z.array(z.string())).describe('framework id → matched clause references'),
});
const ValidationState = z.object({ status: z.enum(['passed', 'failed']), lastValidated: Instant, score: z.number(), issues: z.array(ValidationIssue) });

export const RequirementListItem = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  framework: Framework.nullable().describe('null: not yet assigned to a framework (listed as unassigned, not scored)'),
  status: RequirementStatus,
  priority: Priority,
  createdAt: Instant,
  updatedAt: Instant,
});
export const RequirementDetail = RequirementListItem.extend({
  category: z.string().nullable(),
  acceptanceCriteria: z.array(z.string()),
  technicalContext: z.object({ scope: z.string().optional(), dataFlow: z.string().optional(), relatedComponents: z.array(z.string()).optional() }).nullable(),
  implementation: z
    .object({
      testFile: z.string().optional(),
      gitBranch: z.string().optional(),
      relatedIssues: z.array(z.string()).optional(),
      completedAt: Instant.nullable().optional(),
    })
    .nullable(),
  validation: ValidationState.nullable(),
});
export const RequirementPage = page(RequirementListItem);
export const RequirementDeleted = z.object({ id: z.string(), deleted: z.literal(true), deletedAt: Instant });
export const BatchCreateResult = z.object({
  created: z.array(z.object({ id: z.string(), title: z.string(), status: z.literal('created') })),
  errors: z.array(z.object({ index: z.number().int(), field: z.string(), message: z.string() })),
});
export const BatchStatusResult = z.object({
  updated: z.array(z.object({ id: z.string(), status: RequirementStatus })),
  errors: z.array(z.object({ index: z.number().int(), id: z.string().nullable(), message: z.string() })),
});
export const BatchValidateResult = z.object({
  results: z.array(ValidationResult.extend({ requirementId: z.string() })),
  errors: z.array(z.object({ requirementId: z.string(), message: z.string() })),
});
export const LatestValidation = z.object({ requirementId: z.string(), validation: ValidationState.nullable() });

const OpenFindingCounts = z.object({ critical: z.number().int(), high: z.number().int(), medium: z.number().int(), low: z.number().int() });
/** The parts of a score (docs/scoring.md). */
export const ScoreParts = z.object({
  coverage: z.object({ clauses: z.number().int(), covered: z.number().int(), percent: z.number() }),
  implementation: z.number(),
  validation: z.number(),
  base: z.number(),
  findings: z.object({ open: OpenFindingCounts, penalty: z.number(), cap: z.number().nullable() }),
  weights: z.object({ coverage: z.number(), implementation: z.number(), validation: z.number() }),
});
const RequirementCounts = z.object({ total: z.number().int(), completed: z.number().int(), inProgress: z.number().int(), pending: z.number().int() });
export const FrameworkStatus = z.object({
  score: z.number(),
  status: ComplianceLevel,
  requirements: RequirementCounts,
  lastAssessment: Instant.nullable(),
  scoring: ScoreParts,
});
export const ComplianceStatus = z.object({ overallScore: z.number(), frameworks: z.record(z.string(), FrameworkStatus).describe('framework id → its status') });
export const ShortFrameworkStatus = FrameworkStatus.extend({ framework: Framework });

export const FrameworkSummary = z.object({
  id: Framework,
  name: z.string(),
  description: z.string(),
  version: z.string(),
  categories: z.array(z.string()),
  requirementCount: z.number().int().describe('catalogue clauses, not stored requirements'),
  supported: z.literal(true),
});
export const FrameworkDetail = FrameworkSummary.extend({
  requirements: z.array(z.object({ id: z.string(), section: z.string(), title: z.string(), description: z.string() })),
  validationRules: z.array(z.object({ id: z.string(), name: z.string(), description: z.string() })),
});
export const FrameworkList = list(FrameworkSummary);

export const Finding = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  framework: Framework,
  requirementId: z.string().nullable(),
  severity: Severity,
  status: FindingStatus,
  evidence: z.array(z.string()),
  resolution: z.string().nullable(),
  resolvedAt: Instant.nullable(),
  discoveredAt: Instant,
  dueDate: Instant.nullable(),
  createdAt: Instant,
  updatedAt: Instant,
});
export const FindingPage = page(Finding);

export const GateResult = z.object({
  framework: Framework,
  result: z.enum(['pass', 'fail']),
  passed: z.boolean(),
  reasons: z.array(z.string()),
  checks: z.array(z.object({ name: z.string(), passed: z.boolean(), actual: z.number(), limit: z.number(), message: z.string() })),
  score: z.number(),
  status: ComplianceLevel,
  thresholds: z.object({ minScore: z.number(), maxOpenFindings: z.number().int().nullable() }),
  openFindings: OpenFindingCounts.extend({ total: z.number().int() }),
  scoring: ScoreParts,
  evaluatedAt: Instant,
});

export const AuditEntry = z.object({
  id: z.string(),
  at: Instant,
  keyId: z.string().nullable(),
  actor: z.string(),
  action: z.string(),
  entityType: z.string(),
  entityId: z.string(),
  requestId: z.string().nullable(),
  changedFields: z.array(z.string()),
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
  contentHash: z.string(),
  previousHash: z.string().nullable(),
  hash: z.string().nullable(),
  sealed: z.boolean(),
});
export const AuditTrailPage = page(AuditEntry);
export const AuditVerification = z.object({
  intact: z.boolean(),
  verifiedAt: Instant,
  rows: z.object({ total: z.number().int(), sealed: z.number().int(), unsealed: z.number().int() }),
  oldestUnsealedAt: Instant.nullable(),
  head: z.object({ seq: z.number().int(), hash: z.string(), at: Instant }).nullable(),
  firstBroken: z
    .object({ seq: z.number().int().nullable(), id: z.string(), problem: z.string(), message: z.string(), expected: z.string(), found: z.string() })
    .nullable(),
  problems: z.number().int(),
});

/** `GET /v1/compliance/traceability` as JSON: every clause → requirements → latest validation → findings → evidence. */
export const TraceabilityMatrix = z.object({
  framework: z.string(),
  frameworkName: z.string(),
  version: z.string(),
  generatedAt: z.string(),
  findingsIncluded: z.boolean(),
  summary: z.object({
    clauses: z.number().int(),
    covered: z.number().int(),
    gaps: z.number().int(),
    coveragePercent: z.number(),
    requirements: z.number().int(),
    unmappedRequirements: z.number().int(),
    unassignedRequirements: z.number().int().describe('requirements not yet assigned to any framework: in no matrix'),
    openFindings: z.number().int(),
    resolvedFindings: z.number().int(),
  }),
  clauses: z.array(
    z.object({
      clauseId: z.string(),
      section: z.string(),
      title: z.string(),
      category: z.string(),
      covered: z.boolean(),
      requirements: z.array(z.record(z.string(), z.unknown())),
    }),
  ),
  gaps: z.array(z.object({ clauseId: z.string(), section: z.string(), title: z.string(), category: z.string() })),
  unmappedRequirements: z.array(z.record(z.string(), z.unknown())),
  unlinkedFindings: z.array(z.record(z.string(), z.unknown())),
});
