/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** An audio file format (REST: "mp3", "wav", "ogg") */
export type AudioFormat =
  /** REST "mp3" */
  | 'MP3'
  /** REST "ogg" */
  | 'OGG'
  /** REST "wav" */
  | 'WAV';

/** A compliance event type (webhook `type`) (REST: "requirement.created", "requirement.updated", "requirement.deleted", "compliance.score_changed", "validation.completed", "finding.created", "finding.updated", "report.completed", "user.activity", "system.alert") */
export type ComplianceEventType =
  /** REST "compliance.score_changed" */
  | 'COMPLIANCE_SCORE_CHANGED'
  /** REST "finding.created" */
  | 'FINDING_CREATED'
  /** REST "finding.updated" */
  | 'FINDING_UPDATED'
  /** REST "report.completed" */
  | 'REPORT_COMPLETED'
  /** REST "requirement.created" */
  | 'REQUIREMENT_CREATED'
  /** REST "requirement.deleted" */
  | 'REQUIREMENT_DELETED'
  /** REST "requirement.updated" */
  | 'REQUIREMENT_UPDATED'
  /** REST "system.alert" */
  | 'SYSTEM_ALERT'
  /** REST "user.activity" */
  | 'USER_ACTIVITY'
  /** REST "validation.completed" */
  | 'VALIDATION_COMPLETED';

/** A compliance level derived from the score (REST: "compliant", "mostly-compliant", "partially-compliant", "non-compliant", "not-assessed") */
export type ComplianceLevel =
  /** REST "compliant" */
  | 'COMPLIANT'
  /** REST "mostly-compliant" */
  | 'MOSTLY_COMPLIANT'
  /** REST "non-compliant" */
  | 'NON_COMPLIANT'
  /** REST "not-assessed" */
  | 'NOT_ASSESSED'
  /** REST "partially-compliant" */
  | 'PARTIALLY_COMPLIANT';

/** POST /v1/compliance/reports */
export type ComplianceReportInput = {
  dateRange?: DateRangeInput | null | undefined;
  /** PDF when absent */
  format?: ReportFormat | null | undefined;
  framework: FrameworkId;
  includeEvidence?: boolean | null | undefined;
  /** Printed as the report title (any script); derived from the framework when absent */
  title?: string | null | undefined;
};

export type CreateApiKeyInput = {
  /** count and unit: s, m, h, d, w or y (e.g. 30d) */
  expiresIn?: string | null | undefined;
  name: string;
  permissions: Array<Permission>;
  /** STANDARD when absent; others need the admin key */
  plan?: Plan | null | undefined;
};

export type CreateFindingInput = {
  description?: string | null | undefined;
  discoveredAt?: string | null | undefined;
  dueDate?: string | null | undefined;
  evidence?: Array<string> | null | undefined;
  /** absent: a requirement not yet assigned to a framework */
  framework?: FrameworkId | null | undefined;
  requirementId?: string | null | undefined;
  severity: FindingSeverity;
  title: string;
};

export type CreateRequirementInput = {
  acceptanceCriteria?: Array<string> | null | undefined;
  category?: string | null | undefined;
  description?: string | null | undefined;
  /** absent: a requirement not yet assigned to a framework */
  framework?: FrameworkId | null | undefined;
  implementation?: ImplementationInput | null | undefined;
  /** MEDIUM when absent */
  priority?: Priority | null | undefined;
  technicalContext?: TechnicalContextInput | null | undefined;
  title: string;
};

export type CreateWebhookInput = {
  /** event types, or ALL for every event */
  events: Array<WebhookEvent>;
  secret?: string | null | undefined;
  url: string;
};

/** A dashboard WebSocket event type (REST: "requirement_updated", "compliance_changed", "validation_completed", "user_activity", "system_alert") */
export type DashboardEventType =
  /** REST "compliance_changed" */
  | 'COMPLIANCE_CHANGED'
  /** REST "requirement_updated" */
  | 'REQUIREMENT_UPDATED'
  /** REST "system_alert" */
  | 'SYSTEM_ALERT'
  /** REST "user_activity" */
  | 'USER_ACTIVITY'
  /** REST "validation_completed" */
  | 'VALIDATION_COMPLETED';

/** Overall dashboard health (REST: "healthy", "degraded") */
export type DashboardState =
  /** REST "degraded" */
  | 'DEGRADED'
  /** REST "healthy" */
  | 'HEALTHY';

export type DateRangeInput = {
  /** ISO 8601 timestamp or YYYY-MM-DD (a date means the end of that day) */
  end: string;
  /** ISO 8601 timestamp or YYYY-MM-DD */
  start: string;
};

/** Webhook delivery status (REST: "pending", "delivered", "failed", "skipped") */
export type DeliveryStatus =
  /** REST "delivered" */
  | 'DELIVERED'
  /** REST "failed" */
  | 'FAILED'
  /** REST "pending" */
  | 'PENDING'
  /** REST "skipped" */
  | 'SKIPPED';

/** provider_b emotion controls, each -1 to 1 */
export type EmotionInput = {
  energy?: number | null | undefined;
  positivity?: number | null | undefined;
};

export type FindingFilter = {
  framework?: FrameworkId | null | undefined;
  requirementId?: string | null | undefined;
  severity?: FindingSeverity | null | undefined;
  status?: FindingStatus | null | undefined;
};

/** Audit finding severity (REST: "low", "medium", "high", "critical") */
export type FindingSeverity =
  /** REST "critical" */
  | 'CRITICAL'
  /** REST "high" */
  | 'HIGH'
  /** REST "low" */
  | 'LOW'
  /** REST "medium" */
  | 'MEDIUM';

/** Audit finding status (REST: "open", "in-progress", "resolved") */
export type FindingStatus =
  /** REST "in-progress" */
  | 'IN_PROGRESS'
  /** REST "open" */
  | 'OPEN'
  /** REST "resolved" */
  | 'RESOLVED';

/** A compliance framework (REST: "iso13485", "fda21cfr11", "gdpr", "soc2") */
export type FrameworkId =
  /** REST "fda21cfr11" */
  | 'FDA21CFR11'
  /** REST "gdpr" */
  | 'GDPR'
  /** REST "iso13485" */
  | 'ISO13485'
  /** REST "soc2" */
  | 'SOC2';

export type GenerateInput = {
  metadata?: TtsMetadataInput | null | undefined;
  options?: TtsOptionsInput | null | undefined;
  text: string;
};

/** The kind of a progressive generation event (REST: "started", "progress", "complete", "error") */
export type GenerationEventType =
  /** REST "complete" */
  | 'COMPLETE'
  /** REST "error" */
  | 'ERROR'
  /** REST "progress" */
  | 'PROGRESS'
  /** REST "started" */
  | 'STARTED';

export type HashInput = {
  allowFallback?: boolean | null | undefined;
  hashMode?: HashMode | null | undefined;
  options?: TtsOptionsInput | null | undefined;
  text: string;
};

/** How text is keyed in the audio cache (REST: "direct", "content", "semantic") */
export type HashMode =
  /** REST "content" */
  | 'CONTENT'
  /** REST "direct" */
  | 'DIRECT'
  /** REST "semantic" */
  | 'SEMANTIC';

/** A metric of the dashboard history (REST: "compliance_score", "requirement_completion", "validation_rate") */
export type HistoryMetric =
  /** REST "compliance_score" */
  | 'COMPLIANCE_SCORE'
  /** REST "requirement_completion" */
  | 'REQUIREMENT_COMPLETION'
  /** REST "validation_rate" */
  | 'VALIDATION_RATE';

/** The period of the dashboard history (REST: "7d", "30d", "90d", "1y") */
export type HistoryPeriod =
  /** REST "7d" */
  | 'LAST_7_DAYS'
  /** REST "30d" */
  | 'LAST_30_DAYS'
  /** REST "90d" */
  | 'LAST_90_DAYS'
  /** REST "1y" */
  | 'LAST_YEAR';

export type ImplementationInput = {
  /** ISO 8601; set automatically on completion when absent */
  completedAt?: string | null | undefined;
  gitBranch?: string | null | undefined;
  relatedIssues?: Array<string> | null | undefined;
  testFile?: string | null | undefined;
};

/** A permission an API key holds (REST: "read:requirements", "write:requirements", "read:compliance", "write:compliance", "read:audits", "write:audits", "read:dashboard", "write:dashboard", "manage:webhooks", "manage:api-keys", "read:audit-trail", "sign:reports", "tts:generate", "tts:read", "tts:admin") */
export type Permission =
  /** REST "manage:api-keys" */
  | 'MANAGE_API_KEYS'
  /** REST "manage:webhooks" */
  | 'MANAGE_WEBHOOKS'
  /** REST "read:audits" */
  | 'READ_AUDITS'
  /** REST "read:audit-trail" */
  | 'READ_AUDIT_TRAIL'
  /** REST "read:compliance" */
  | 'READ_COMPLIANCE'
  /** REST "read:dashboard" */
  | 'READ_DASHBOARD'
  /** REST "read:requirements" */
  | 'READ_REQUIREMENTS'
  /** REST "sign:reports" */
  | 'SIGN_REPORTS'
  /** REST "tts:admin" */
  | 'TTS_ADMIN'
  /** REST "tts:generate" */
  | 'TTS_GENERATE'
  /** REST "tts:read" */
  | 'TTS_READ'
  /** REST "write:audits" */
  | 'WRITE_AUDITS'
  /** REST "write:compliance" */
  | 'WRITE_COMPLIANCE'
  /** REST "write:dashboard" */
  | 'WRITE_DASHBOARD'
  /** REST "write:requirements" */
  | 'WRITE_REQUIREMENTS';

/** An API key plan (REST: "standard", "premium", "enterprise") */
export type Plan =
  /** REST "enterprise" */
  | 'ENTERPRISE'
  /** REST "premium" */
  | 'PREMIUM'
  /** REST "standard" */
  | 'STANDARD';

/** Requirement priority (REST: "critical", "high", "medium", "low") */
export type Priority =
  /** REST "critical" */
  | 'CRITICAL'
  /** REST "high" */
  | 'HIGH'
  /** REST "low" */
  | 'LOW'
  /** REST "medium" */
  | 'MEDIUM';

/** A speech provider (REST: "provider_a", "provider_b", "provider_c", "mock") */
export type ProviderId =
  /** REST "mock" */
  | 'MOCK'
  /** REST "provider_a" */
  | 'PROVIDER_A'
  /** REST "provider_b" */
  | 'PROVIDER_B'
  /** REST "provider_c" */
  | 'PROVIDER_C';

/** Audio quality (which a provider offers: Provider.qualities) (REST: "low", "medium", "high", "standard") */
export type Quality =
  /** REST "high" */
  | 'HIGH'
  /** REST "low" */
  | 'LOW'
  /** REST "medium" */
  | 'MEDIUM'
  /** REST "standard" */
  | 'STANDARD';

/** A report file format (REST: "pdf", "csv", "json") */
export type ReportFormat =
  /** REST "csv" */
  | 'CSV'
  /** REST "json" */
  | 'JSON'
  /** REST "pdf" */
  | 'PDF';

/** Where a report is in its life: generating, completed (downloadable until expiresAt), failed, or expired (no file any more) (REST: "generating", "completed", "failed", "expired") */
export type ReportState =
  /** REST "completed" */
  | 'COMPLETED'
  /** REST "expired" */
  | 'EXPIRED'
  /** REST "failed" */
  | 'FAILED'
  /** REST "generating" */
  | 'GENERATING';

/** A report type (REST: "compliance", "requirements", "audit", "summary") */
export type ReportType =
  /** REST "audit" */
  | 'AUDIT'
  /** REST "compliance" */
  | 'COMPLIANCE'
  /** REST "requirements" */
  | 'REQUIREMENTS'
  /** REST "summary" */
  | 'SUMMARY';

export type RequirementFilter = {
  framework?: FrameworkId | null | undefined;
  priority?: Priority | null | undefined;
  status?: RequirementStatus | null | undefined;
  /** true: only requirements not yet assigned to a framework; false: only assigned ones */
  unassigned?: boolean | null | undefined;
};

/** Requirement status (REST: "pending", "in-progress", "completed") */
export type RequirementStatus =
  /** REST "completed" */
  | 'COMPLETED'
  /** REST "in-progress" */
  | 'IN_PROGRESS'
  /** REST "pending" */
  | 'PENDING';

export type TechnicalContextInput = {
  dataFlow?: string | null | undefined;
  relatedComponents?: Array<string> | null | undefined;
  scope?: string | null | undefined;
};

/** The direction of a history (REST: "increasing", "decreasing", "stable") */
export type Trend =
  /** REST "decreasing" */
  | 'DECREASING'
  /** REST "increasing" */
  | 'INCREASING'
  /** REST "stable" */
  | 'STABLE';

export type TtsMetadataInput = {
  contentId?: string | null | undefined;
  priority?: number | null | undefined;
  tags?: Array<string> | null | undefined;
  userId?: string | null | undefined;
};

export type TtsOptionsInput = {
  cache?: boolean | null | undefined;
  emotion?: EmotionInput | null | undefined;
  format?: AudioFormat | null | undefined;
  language?: string | null | undefined;
  /** semitones, -50 to 50 (provider_c) */
  pitch?: number | null | undefined;
  provider?: ProviderId | null | undefined;
  quality?: Quality | null | undefined;
  speed?: number | null | undefined;
  /** cache lifetime in seconds */
  ttl?: number | null | undefined;
  voice?: string | null | undefined;
};

export type UpdateFindingInput = {
  description?: string | null | undefined;
  dueDate?: string | null | undefined;
  /** appended to the recorded evidence */
  evidence?: Array<string> | null | undefined;
  resolution?: string | null | undefined;
  resolvedAt?: string | null | undefined;
  severity?: FindingSeverity | null | undefined;
  status?: FindingStatus | null | undefined;
};

/** Partial update: only the fields given change */
export type UpdateRequirementInput = {
  acceptanceCriteria?: Array<string> | null | undefined;
  category?: string | null | undefined;
  description?: string | null | undefined;
  framework?: FrameworkId | null | undefined;
  implementation?: ImplementationInput | null | undefined;
  priority?: Priority | null | undefined;
  status?: RequirementStatus | null | undefined;
  technicalContext?: TechnicalContextInput | null | undefined;
  title?: string | null | undefined;
};

/** Outcome of a requirement validation (REST: "passed", "failed") */
export type ValidationOutcome =
  /** REST "failed" */
  | 'FAILED'
  /** REST "passed" */
  | 'PASSED';

/** Severity of a validation issue (REST: "error", "warning", "info") */
export type ValidationSeverity =
  /** REST "error" */
  | 'ERROR'
  /** REST "info" */
  | 'INFO'
  /** REST "warning" */
  | 'WARNING';

/** An event a webhook subscribes to; ALL is every event (REST: "requirement.created", "requirement.updated", "requirement.deleted", "compliance.score_changed", "validation.completed", "finding.created", "finding.updated", "report.completed", "user.activity", "system.alert", "*") */
export type WebhookEvent =
  /** REST "*" */
  | 'ALL'
  /** REST "compliance.score_changed" */
  | 'COMPLIANCE_SCORE_CHANGED'
  /** REST "finding.created" */
  | 'FINDING_CREATED'
  /** REST "finding.updated" */
  | 'FINDING_UPDATED'
  /** REST "report.completed" */
  | 'REPORT_COMPLETED'
  /** REST "requirement.created" */
  | 'REQUIREMENT_CREATED'
  /** REST "requirement.deleted" */
  | 'REQUIREMENT_DELETED'
  /** REST "requirement.updated" */
  | 'REQUIREMENT_UPDATED'
  /** REST "system.alert" */
  | 'SYSTEM_ALERT'
  /** REST "user.activity" */
  | 'USER_ACTIVITY'
  /** REST "validation.completed" */
  | 'VALIDATION_COMPLETED';

export type IssueKeyMutationVariables = Exact<{
  input: CreateApiKeyInput;
}>;


export type IssueKeyMutation = { createApiKey: { id: string, key: string, name: string, permissions: Array<Permission>, plan: Plan, expiresAt: string | null, createdAt: string } };

export type ApiKeyListQueryVariables = Exact<{ [key: string]: never; }>;


export type ApiKeyListQuery = { apiKeys: Array<{ id: string, name: string, prefix: string, permissions: Array<Permission>, plan: Plan, isAdmin: boolean, issuedBy: string | null, createdAt: string, expiresAt: string | null, lastUsedAt: string | null, revokedAt: string | null }> };

export type RevokeKeyMutationVariables = Exact<{
  id: string;
}>;


export type RevokeKeyMutation = { revokeApiKey: { id: string, revoked: boolean } };

export type WebhookListQueryVariables = Exact<{ [key: string]: never; }>;


export type WebhookListQuery = { webhooks: Array<{ id: string, url: string, events: Array<WebhookEvent>, createdAt: string }> };

export type RegisterWebhookMutationVariables = Exact<{
  input: CreateWebhookInput;
}>;


export type RegisterWebhookMutation = { createWebhook: { id: string, url: string, events: Array<WebhookEvent>, secret: string, createdAt: string } };

export type RemoveWebhookMutationVariables = Exact<{
  id: string;
}>;


export type RemoveWebhookMutation = { deleteWebhook: boolean };

export type DeliveriesOfQueryVariables = Exact<{
  id: string;
  limit?: number | null | undefined;
}>;


export type DeliveriesOfQuery = { webhookDeliveries: Array<{ id: string, eventId: string, type: ComplianceEventType, status: DeliveryStatus, attempts: number, lastStatusCode: number | null, lastError: string | null, createdAt: string, deliveredAt: string | null, nextAttemptAt: string | null }> };

export type ComplianceStatusViewQueryVariables = Exact<{ [key: string]: never; }>;


export type ComplianceStatusViewQuery = { complianceStatus: { overallScore: number, frameworks: Array<{ framework: FrameworkId, score: number, status: ComplianceLevel, lastAssessment: string | null, scoring: { implementation: number, validation: number, coverage: { covered: number, clauses: number, percent: number }, findings: { penalty: number, cap: number | null } }, requirements: { total: number, completed: number, inProgress: number, pending: number } }> } };

export type HistoryQueryVariables = Exact<{
  period?: HistoryPeriod | null | undefined;
  metric?: HistoryMetric | null | undefined;
  framework?: FrameworkId | null | undefined;
}>;


export type HistoryQuery = { dashboardHistory: { metric: HistoryMetric, period: HistoryPeriod, trend: Trend, averageValue: number, dataPoints: Array<{ timestamp: string, value: number }> } };

export type DashboardStatusViewQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardStatusViewQuery = { dashboardStatus: { status: DashboardState, uptime: string, lastActivity: string | null, systemHealth: { compliance: string, monitoring: string, validation: string }, recentActivity: Array<{ type: string, description: string, user: string, timestamp: string }> } };

export type RequirementRowFragment = { id: string, title: string, description: string | null, framework: FrameworkId | null, category: string | null, priority: Priority, status: RequirementStatus, acceptanceCriteria: Array<string>, updatedAt: string, validation: { score: number, status: ValidationOutcome } | null };

export type RequirementListQueryVariables = Exact<{
  filter?: RequirementFilter | null | undefined;
  limit?: number | null | undefined;
  offset?: number | null | undefined;
}>;


export type RequirementListQuery = { requirements: { data: Array<{ id: string, title: string, description: string | null, framework: FrameworkId | null, category: string | null, priority: Priority, status: RequirementStatus, acceptanceCriteria: Array<string>, updatedAt: string, validation: { score: number, status: ValidationOutcome } | null }>, pagination: { total: number, limit: number, offset: number, hasMore: boolean } } };

export type CreateRequirementFormMutationVariables = Exact<{
  input: CreateRequirementInput;
}>;


export type CreateRequirementFormMutation = { createRequirement: { id: string, title: string, description: string | null, framework: FrameworkId | null, category: string | null, priority: Priority, status: RequirementStatus, acceptanceCriteria: Array<string>, updatedAt: string, validation: { score: number, status: ValidationOutcome } | null } };

export type UpdateRequirementFormMutationVariables = Exact<{
  id: string;
  input: UpdateRequirementInput;
}>;


export type UpdateRequirementFormMutation = { updateRequirement: { id: string, title: string, description: string | null, framework: FrameworkId | null, category: string | null, priority: Priority, status: RequirementStatus, acceptanceCriteria: Array<string>, updatedAt: string, validation: { score: number, status: ValidationOutcome } | null } };

export type ValidateRequirementActionMutationVariables = Exact<{
  id: string;
}>;


export type ValidateRequirementActionMutation = { validateRequirement: { valid: boolean, score: number, suggestions: Array<string>, complianceMapping: Record<string, unknown>, issues: Array<{ ruleId: string, field: string, severity: ValidationSeverity, message: string }> } };

export type FindingRowFragment = { id: string, title: string, description: string | null, framework: FrameworkId, severity: FindingSeverity, status: FindingStatus, requirementId: string | null, evidence: Array<string>, resolution: string | null, resolvedAt: string | null, dueDate: string | null, discoveredAt: string };

export type FindingListQueryVariables = Exact<{
  filter?: FindingFilter | null | undefined;
  limit?: number | null | undefined;
  offset?: number | null | undefined;
}>;


export type FindingListQuery = { findings: { data: Array<{ id: string, title: string, description: string | null, framework: FrameworkId, severity: FindingSeverity, status: FindingStatus, requirementId: string | null, evidence: Array<string>, resolution: string | null, resolvedAt: string | null, dueDate: string | null, discoveredAt: string }>, pagination: { total: number, limit: number, offset: number, hasMore: boolean } } };

export type RecordFindingMutationVariables = Exact<{
  input: CreateFindingInput;
}>;


export type RecordFindingMutation = { createFinding: { id: string, title: string, description: string | null, framework: FrameworkId, severity: FindingSeverity, status: FindingStatus, requirementId: string | null, evidence: Array<string>, resolution: string | null, resolvedAt: string | null, dueDate: string | null, discoveredAt: string } };

export type ChangeFindingMutationVariables = Exact<{
  id: string;
  input: UpdateFindingInput;
}>;


export type ChangeFindingMutation = { updateFinding: { id: string, title: string, description: string | null, framework: FrameworkId, severity: FindingSeverity, status: FindingStatus, requirementId: string | null, evidence: Array<string>, resolution: string | null, resolvedAt: string | null, dueDate: string | null, discoveredAt: string } };

export type ReportRowFragment = { reportId: string, type: ReportType, framework: FrameworkId | null, format: ReportFormat, status: ReportState, createdAt: string, generatedAt: string | null, downloadUrl: string | null, size: number | null, error: string | null };

export type RequestReportMutationVariables = Exact<{
  input: ComplianceReportInput;
}>;


export type RequestReportMutation = { requestComplianceReport: { reportId: string, type: ReportType, framework: FrameworkId | null, format: ReportFormat, status: ReportState, createdAt: string, generatedAt: string | null, downloadUrl: string | null, size: number | null, error: string | null } };

export type ReportByIdQueryVariables = Exact<{
  reportId: string;
}>;


export type ReportByIdQuery = { complianceReport: { reportId: string, type: ReportType, framework: FrameworkId | null, format: ReportFormat, status: ReportState, createdAt: string, generatedAt: string | null, downloadUrl: string | null, size: number | null, error: string | null } };

export type LiveEventsSubscriptionVariables = Exact<{
  types?: Array<ComplianceEventType> | ComplianceEventType | null | undefined;
  wsTypes?: Array<DashboardEventType> | DashboardEventType | null | undefined;
}>;


export type LiveEventsSubscription = { complianceEvents: { id: string, type: ComplianceEventType, wsType: DashboardEventType, data: Record<string, unknown>, createdAt: string } };

export type ViewerQueryVariables = Exact<{ [key: string]: never; }>;


export type ViewerQuery = { viewer: { keyId: string, name: string, isAdmin: boolean, plan: Plan, permissions: Array<Permission>, speechOpen: boolean } };

export type ProviderCatalogueQueryVariables = Exact<{ [key: string]: never; }>;


export type ProviderCatalogueQuery = { providers: Array<{ name: ProviderId, displayName: string, configured: boolean, default: boolean, formats: Array<AudioFormat>, qualities: Array<Quality>, voices: Array<string>, languages: Array<string>, speed: { min: number, max: number }, defaults: { voice: string, format: AudioFormat, quality: Quality, speed: number } }> };

export type CostEstimateQueryVariables = Exact<{
  input: GenerateInput;
}>;


export type CostEstimateQuery = { estimate: { cost: number, currency: string, characterCount: number, provider: ProviderId, quality: Quality } };

export type GenerateSpeechMutationVariables = Exact<{
  input: GenerateInput;
}>;


export type GenerateSpeechMutation = { generate: { hash: string, audioUrl: string, cached: boolean, duration: number, cost: number, metadata: { provider: ProviderId, voice: string, format: AudioFormat | null, fileSize: number } } };

export type ProgressiveSpeechSubscriptionVariables = Exact<{
  input: GenerateInput;
}>;


export type ProgressiveSpeechSubscription = { generateProgressive: { type: GenerationEventType, totalChunks: number | null, streamUrl: string | null, completed: number | null, total: number | null, progress: number | null, hash: string | null, audioUrl: string | null, cached: boolean | null, chunks: number | null, duration: number | null, code: string | null, message: string | null } };

export type SpeechCacheStatsQueryVariables = Exact<{ [key: string]: never; }>;


export type SpeechCacheStatsQuery = { cacheStats: { totalEntries: number, totalSize: number, oldestEntry: string | null, newestEntry: string | null } };

export type SpeechProviderStatsQueryVariables = Exact<{ [key: string]: never; }>;


export type SpeechProviderStatsQuery = { providerStats: Array<{ provider: ProviderId, requests: number, errors: number, charactersProcessed: number, totalCost: number, avgLatency: number }> };

export type LookUpHashQueryVariables = Exact<{
  input: HashInput;
}>;


export type LookUpHashQuery = { hashLookup: { found: boolean, hash: string | null, mode: HashMode | null, confidence: number | null, audioUrl: string | null, message: string | null, metadata: { provider: ProviderId, voice: string, duration: number, fileSize: number, generatedAt: string } | null } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const RequirementRowFragmentDoc = new TypedDocumentString(`
    fragment RequirementRow on Requirement {
  id
  title
  description
  framework
  category
  priority
  status
  acceptanceCriteria
  updatedAt
  validation {
    score
    status
  }
}
    `, {"fragmentName":"RequirementRow"}) as unknown as TypedDocumentString<RequirementRowFragment, unknown>;
export const FindingRowFragmentDoc = new TypedDocumentString(`
    fragment FindingRow on Finding {
  id
  title
  description
  framework
  severity
  status
  requirementId
  evidence
  resolution
  resolvedAt
  dueDate
  discoveredAt
}
    `, {"fragmentName":"FindingRow"}) as unknown as TypedDocumentString<FindingRowFragment, unknown>;
export const ReportRowFragmentDoc = new TypedDocumentString(`
    fragment ReportRow on ReportStatus {
  reportId
  type
  framework
  format
  status
  createdAt
  generatedAt
  downloadUrl
  size
  error
}
    `, {"fragmentName":"ReportRow"}) as unknown as TypedDocumentString<ReportRowFragment, unknown>;
export const IssueKeyDocument = new TypedDocumentString(`
    mutation IssueKey($input: CreateApiKeyInput!) {
  createApiKey(input: $input) {
    id
    key
    name
    permissions
    plan
    expiresAt
    createdAt
  }
}
    `) as unknown as TypedDocumentString<IssueKeyMutation, IssueKeyMutationVariables>;
export const ApiKeyListDocument = new TypedDocumentString(`
    query ApiKeyList {
  apiKeys {
    id
    name
    prefix
    permissions
    plan
    isAdmin
    issuedBy
    createdAt
    expiresAt
    lastUsedAt
    revokedAt
  }
}
    `) as unknown as TypedDocumentString<ApiKeyListQuery, ApiKeyListQueryVariables>;
export const RevokeKeyDocument = new TypedDocumentString(`
    mutation RevokeKey($id: String!) {
  revokeApiKey(id: $id) {
    id
    revoked
  }
}
    `) as unknown as TypedDocumentString<RevokeKeyMutation, RevokeKeyMutationVariables>;
export const WebhookListDocument = new TypedDocumentString(`
    query WebhookList {
  webhooks {
    id
    url
    events
    createdAt
  }
}
    `) as unknown as TypedDocumentString<WebhookListQuery, WebhookListQueryVariables>;
export const RegisterWebhookDocument = new TypedDocumentString(`
    mutation RegisterWebhook($input: CreateWebhookInput!) {
  createWebhook(input: $input) {
    id
    url
    events
    secret
    createdAt
  }
}
    `) as unknown as TypedDocumentString<RegisterWebhookMutation, RegisterWebhookMutationVariables>;
export const RemoveWebhookDocument = new TypedDocumentString(`
    mutation RemoveWebhook($id: String!) {
  deleteWebhook(id: $id)
}
    `) as unknown as TypedDocumentString<RemoveWebhookMutation, RemoveWebhookMutationVariables>;
export const DeliveriesOfDocument = new TypedDocumentString(`
    query DeliveriesOf($id: String!, $limit: Int) {
  webhookDeliveries(id: $id, limit: $limit) {
    id
    eventId
    type
    status
    attempts
    lastStatusCode
    lastError
    createdAt
    deliveredAt
    nextAttemptAt
  }
}
    `) as unknown as TypedDocumentString<DeliveriesOfQuery, DeliveriesOfQueryVariables>;
export const ComplianceStatusViewDocument = new TypedDocumentString(`
    query ComplianceStatusView {
  complianceStatus {
    overallScore
    frameworks {
      framework
      score
      status
      lastAssessment
      scoring {
        implementation
        validation
        coverage {
          covered
          clauses
          percent
        }
        findings {
          penalty
          cap
        }
      }
      requirements {
        total
        completed
        inProgress
        pending
      }
    }
  }
}
    `) as unknown as TypedDocumentString<ComplianceStatusViewQuery, ComplianceStatusViewQueryVariables>;
export const HistoryDocument = new TypedDocumentString(`
    query History($period: HistoryPeriod, $metric: HistoryMetric, $framework: FrameworkId) {
  dashboardHistory(period: $period, metric: $metric, framework: $framework) {
    metric
    period
    trend
    averageValue
    dataPoints {
      timestamp
      value
    }
  }
}
    `) as unknown as TypedDocumentString<HistoryQuery, HistoryQueryVariables>;
export const DashboardStatusViewDocument = new TypedDocumentString(`
    query DashboardStatusView {
  dashboardStatus {
    status
    uptime
    lastActivity
    systemHealth {
      compliance
      monitoring
      validation
    }
    recentActivity {
      type
      description
      user
      timestamp
    }
  }
}
    `) as unknown as TypedDocumentString<DashboardStatusViewQuery, DashboardStatusViewQueryVariables>;
export const RequirementListDocument = new TypedDocumentString(`
    query RequirementList($filter: RequirementFilter, $limit: Int, $offset: Int) {
  requirements(filter: $filter, limit: $limit, offset: $offset) {
    data {
      ...RequirementRow
    }
    pagination {
      total
      limit
      offset
      hasMore
    }
  }
}
    fragment RequirementRow on Requirement {
  id
  title
  description
  framework
  category
  priority
  status
  acceptanceCriteria
  updatedAt
  validation {
    score
    status
  }
}`) as unknown as TypedDocumentString<RequirementListQuery, RequirementListQueryVariables>;
export const CreateRequirementFormDocument = new TypedDocumentString(`
    mutation CreateRequirementForm($input: CreateRequirementInput!) {
  createRequirement(input: $input) {
    ...RequirementRow
  }
}
    fragment RequirementRow on Requirement {
  id
  title
  description
  framework
  category
  priority
  status
  acceptanceCriteria
  updatedAt
  validation {
    score
    status
  }
}`) as unknown as TypedDocumentString<CreateRequirementFormMutation, CreateRequirementFormMutationVariables>;
export const UpdateRequirementFormDocument = new TypedDocumentString(`
    mutation UpdateRequirementForm($id: String!, $input: UpdateRequirementInput!) {
  updateRequirement(id: $id, input: $input) {
    ...RequirementRow
  }
}
    fragment RequirementRow on Requirement {
  id
  title
  description
  framework
  category
  priority
  status
  acceptanceCriteria
  updatedAt
  validation {
    score
    status
  }
}`) as unknown as TypedDocumentString<UpdateRequirementFormMutation, UpdateRequirementFormMutationVariables>;
export const ValidateRequirementActionDocument = new TypedDocumentString(`
    mutation ValidateRequirementAction($id: String!) {
  validateRequirement(id: $id) {
    valid
    score
    issues {
      ruleId
      field
      severity
      message
    }
    suggestions
    complianceMapping
  }
}
    `) as unknown as TypedDocumentString<ValidateRequirementActionMutation, ValidateRequirementActionMutationVariables>;
export const FindingListDocument = new TypedDocumentString(`
    query FindingList($filter: FindingFilter, $limit: Int, $offset: Int) {
  findings(filter: $filter, limit: $limit, offset: $offset) {
    data {
      ...FindingRow
    }
    pagination {
      total
      limit
      offset
      hasMore
    }
  }
}
    fragment FindingRow on Finding {
  id
  title
  description
  framework
  severity
  status
  requirementId
  evidence
  resolution
  resolvedAt
  dueDate
  discoveredAt
}`) as unknown as TypedDocumentString<FindingListQuery, FindingListQueryVariables>;
export const RecordFindingDocument = new TypedDocumentString(`
    mutation RecordFinding($input: CreateFindingInput!) {
  createFinding(input: $input) {
    ...FindingRow
  }
}
    fragment FindingRow on Finding {
  id
  title
  description
  framework
  severity
  status
  requirementId
  evidence
  resolution
  resolvedAt
  dueDate
  discoveredAt
}`) as unknown as TypedDocumentString<RecordFindingMutation, RecordFindingMutationVariables>;
export const ChangeFindingDocument = new TypedDocumentString(`
    mutation ChangeFinding($id: String!, $input: UpdateFindingInput!) {
  updateFinding(id: $id, input: $input) {
    ...FindingRow
  }
}
    fragment FindingRow on Finding {
  id
  title
  description
  framework
  severity
  status
  requirementId
  evidence
  resolution
  resolvedAt
  dueDate
  discoveredAt
}`) as unknown as TypedDocumentString<ChangeFindingMutation, ChangeFindingMutationVariables>;
export const RequestReportDocument = new TypedDocumentString(`
    mutation RequestReport($input: ComplianceReportInput!) {
  requestComplianceReport(input: $input) {
    ...ReportRow
  }
}
    fragment ReportRow on ReportStatus {
  reportId
  type
  framework
  format
  status
  createdAt
  generatedAt
  downloadUrl
  size
  error
}`) as unknown as TypedDocumentString<RequestReportMutation, RequestReportMutationVariables>;
export const ReportByIdDocument = new TypedDocumentString(`
    query ReportById($reportId: String!) {
  complianceReport(reportId: $reportId) {
    ...ReportRow
  }
}
    fragment ReportRow on ReportStatus {
  reportId
  type
  framework
  format
  status
  createdAt
  generatedAt
  downloadUrl
  size
  error
}`) as unknown as TypedDocumentString<ReportByIdQuery, ReportByIdQueryVariables>;
export const LiveEventsDocument = new TypedDocumentString(`
    subscription LiveEvents($types: [ComplianceEventType!], $wsTypes: [DashboardEventType!]) {
  complianceEvents(types: $types, wsTypes: $wsTypes) {
    id
    type
    wsType
    data
    createdAt
  }
}
    `) as unknown as TypedDocumentString<LiveEventsSubscription, LiveEventsSubscriptionVariables>;
export const ViewerDocument = new TypedDocumentString(`
    query Viewer {
  viewer {
    keyId
    name
    isAdmin
    plan
    permissions
    speechOpen
  }
}
    `) as unknown as TypedDocumentString<ViewerQuery, ViewerQueryVariables>;
export const ProviderCatalogueDocument = new TypedDocumentString(`
    query ProviderCatalogue {
  providers {
    name
    displayName
    configured
    default
    formats
    qualities
    voices
    languages
    speed {
      min
      max
    }
    defaults {
      voice
      format
      quality
      speed
    }
  }
}
    `) as unknown as TypedDocumentString<ProviderCatalogueQuery, ProviderCatalogueQueryVariables>;
export const CostEstimateDocument = new TypedDocumentString(`
    query CostEstimate($input: GenerateInput!) {
  estimate(input: $input) {
    cost
    currency
    characterCount
    provider
    quality
  }
}
    `) as unknown as TypedDocumentString<CostEstimateQuery, CostEstimateQueryVariables>;
export const GenerateSpeechDocument = new TypedDocumentString(`
    mutation GenerateSpeech($input: GenerateInput!) {
  generate(input: $input) {
    hash
    audioUrl
    cached
    duration
    cost
    metadata {
      provider
      voice
      format
      fileSize
    }
  }
}
    `) as unknown as TypedDocumentString<GenerateSpeechMutation, GenerateSpeechMutationVariables>;
export const ProgressiveSpeechDocument = new TypedDocumentString(`
    subscription ProgressiveSpeech($input: GenerateInput!) {
  generateProgressive(input: $input) {
    type
    totalChunks
    streamUrl
    completed
    total
    progress
    hash
    audioUrl
    cached
    chunks
    duration
    code
    message
  }
}
    `) as unknown as TypedDocumentString<ProgressiveSpeechSubscription, ProgressiveSpeechSubscriptionVariables>;
export const SpeechCacheStatsDocument = new TypedDocumentString(`
    query SpeechCacheStats {
  cacheStats {
    totalEntries
    totalSize
    oldestEntry
    newestEntry
  }
}
    `) as unknown as TypedDocumentString<SpeechCacheStatsQuery, SpeechCacheStatsQueryVariables>;
export const SpeechProviderStatsDocument = new TypedDocumentString(`
    query SpeechProviderStats {
  providerStats {
    provider
    requests
    errors
    charactersProcessed
    totalCost
    avgLatency
  }
}
    `) as unknown as TypedDocumentString<SpeechProviderStatsQuery, SpeechProviderStatsQueryVariables>;
export const LookUpHashDocument = new TypedDocumentString(`
    query LookUpHash($input: HashInput!) {
  hashLookup(input: $input) {
    found
    hash
    mode
    confidence
    audioUrl
    message
    metadata {
      provider
      voice
      duration
      fileSize
      generatedAt
    }
  }
}
    `) as unknown as TypedDocumentString<LookUpHashQuery, LookUpHashQueryVariables>;