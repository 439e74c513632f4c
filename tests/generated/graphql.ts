/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** The `JSONObject` scalar type represents JSON objects as specified by [ECMA-404](http://www.ecma-international.org/publications/files/ECMA-ST/ECMA-404.pdf). */
  JSONObject: { input: Record<string, unknown>; output: Record<string, unknown>; }
};

export type ActivityEntry = {
  __typename?: 'ActivityEntry';
  description: Scalars['String']['output'];
  timestamp: Scalars['String']['output'];
  type: Scalars['String']['output'];
  user: Scalars['String']['output'];
};

export type AudioMetadata = {
  __typename?: 'AudioMetadata';
  accessCount: Scalars['Int']['output'];
  bitrate: Scalars['Int']['output'];
  cost: Cost;
  duration: Scalars['Float']['output'];
  expiresAt?: Maybe<Scalars['String']['output']>;
  fileSize: Scalars['Int']['output'];
  format: Scalars['String']['output'];
  generatedAt: Scalars['String']['output'];
  hash: Scalars['String']['output'];
  hashes: Hashes;
  language: Scalars['String']['output'];
  lastAccessedAt: Scalars['String']['output'];
  normalizedText: Scalars['String']['output'];
  originalText: Scalars['String']['output'];
  provider: Scalars['String']['output'];
  quality: Scalars['String']['output'];
  sampleRate: Scalars['Int']['output'];
  speed: Scalars['Float']['output'];
  voice: Scalars['String']['output'];
};

export type BatchCreateResult = {
  __typename?: 'BatchCreateResult';
  created: Array<BatchCreated>;
  errors: Array<BatchItemError>;
};

export type BatchCreated = {
  __typename?: 'BatchCreated';
  id: Scalars['String']['output'];
  status: Scalars['String']['output'];
  title: Scalars['String']['output'];
};

export type BatchItemError = {
  __typename?: 'BatchItemError';
  field: Scalars['String']['output'];
  index: Scalars['Int']['output'];
  message: Scalars['String']['output'];
};

export type BatchStatusResult = {
  __typename?: 'BatchStatusResult';
  errors: Array<StatusUpdateError>;
  updated: Array<StatusUpdated>;
};

export type CacheStats = {
  __typename?: 'CacheStats';
  newestEntry?: Maybe<Scalars['String']['output']>;
  oldestEntry?: Maybe<Scalars['String']['output']>;
  totalEntries: Scalars['Int']['output'];
  /** bytes */
  totalSize: Scalars['Float']['output'];
};

/** A live compliance event (the same event webhooks receive) */
export type ComplianceEvent = {
  __typename?: 'ComplianceEvent';
  createdAt: Scalars['String']['output'];
  data: Scalars['JSONObject']['output'];
  id: Scalars['String']['output'];
  /** dotted type, e.g. requirement.updated */
  type: Scalars['String']['output'];
  /** the dashboard WebSocket type, e.g. requirement_updated */
  wsType: Scalars['String']['output'];
};

export type ComplianceOverview = {
  __typename?: 'ComplianceOverview';
  frameworks: Array<FrameworkScore>;
  overallScore: Scalars['Float']['output'];
};

/** POST /v1/compliance/reports */
export type ComplianceReportInput = {
  dateRange?: InputMaybe<DateRangeInput>;
  /** pdf (default), csv or json */
  format?: InputMaybe<Scalars['String']['input']>;
  framework: Scalars['String']['input'];
  includeEvidence?: InputMaybe<Scalars['Boolean']['input']>;
};

export type ComplianceStatus = {
  __typename?: 'ComplianceStatus';
  frameworks: Array<FrameworkStatus>;
  overallScore: Scalars['Float']['output'];
};

export type Cost = {
  __typename?: 'Cost';
  amount: Scalars['Float']['output'];
  charactersCharged: Scalars['Int']['output'];
  currency: Scalars['String']['output'];
};

export type CostEstimate = {
  __typename?: 'CostEstimate';
  characterCount: Scalars['Int']['output'];
  cost: Scalars['Float']['output'];
  currency: Scalars['String']['output'];
  provider: Scalars['String']['output'];
  quality: Scalars['String']['output'];
};

export type CreateApiKeyInput = {
  /** count and unit: s, m, h, d, w or y (e.g. 30d) */
  expiresIn?: InputMaybe<Scalars['String']['input']>;
  name: Scalars['String']['input'];
  permissions: Array<Scalars['String']['input']>;
  /** standard (default), premium or enterprise (admin only) */
  plan?: InputMaybe<Scalars['String']['input']>;
};

export type CreateFindingInput = {
  description?: InputMaybe<Scalars['String']['input']>;
  discoveredAt?: InputMaybe<Scalars['String']['input']>;
  dueDate?: InputMaybe<Scalars['String']['input']>;
  evidence?: InputMaybe<Array<Scalars['String']['input']>>;
  framework: Scalars['String']['input'];
  requirementId?: InputMaybe<Scalars['String']['input']>;
  severity: Scalars['String']['input'];
  title: Scalars['String']['input'];
};

export type CreateRequirementInput = {
  acceptanceCriteria?: InputMaybe<Array<Scalars['String']['input']>>;
  category?: InputMaybe<Scalars['String']['input']>;
  description?: InputMaybe<Scalars['String']['input']>;
  framework: Scalars['String']['input'];
  implementation?: InputMaybe<ImplementationInput>;
  /** critical, high, medium (default) or low */
  priority?: InputMaybe<Scalars['String']['input']>;
  technicalContext?: InputMaybe<TechnicalContextInput>;
  title: Scalars['String']['input'];
};

export type CreateWebhookInput = {
  /** dotted event types (requirement.updated, …) or * */
  events: Array<Scalars['String']['input']>;
  secret?: InputMaybe<Scalars['String']['input']>;
  url: Scalars['String']['input'];
};

/** A new webhook; the secret is shown only here */
export type CreatedWebhook = {
  __typename?: 'CreatedWebhook';
  createdAt: Scalars['String']['output'];
  events: Array<Scalars['String']['output']>;
  id: Scalars['String']['output'];
  secret: Scalars['String']['output'];
  url: Scalars['String']['output'];
};

export type DashboardHistory = {
  __typename?: 'DashboardHistory';
  averageValue: Scalars['Float']['output'];
  dataPoints: Array<HistoryPoint>;
  framework?: Maybe<Scalars['String']['output']>;
  metric: Scalars['String']['output'];
  period: Scalars['String']['output'];
  /** increasing, decreasing or stable */
  trend: Scalars['String']['output'];
};

export type DashboardMetrics = {
  __typename?: 'DashboardMetrics';
  compliance: ComplianceOverview;
  project: ProjectInfo;
  requirements: RequirementCounts;
};

/** POST /v1/dashboard/reports */
export type DashboardReportInput = {
  /** YYYY-MM-DD, with period custom */
  endDate?: InputMaybe<Scalars['String']['input']>;
  /** pdf (default), json or csv */
  format?: InputMaybe<Scalars['String']['input']>;
  framework?: InputMaybe<Scalars['String']['input']>;
  /** last_7_days, last_30_days (default), last_90_days or custom */
  period?: InputMaybe<Scalars['String']['input']>;
  /** YYYY-MM-DD, with period custom */
  startDate?: InputMaybe<Scalars['String']['input']>;
  /** compliance, requirements, audit or summary */
  type: Scalars['String']['input'];
};

export type DashboardStatus = {
  __typename?: 'DashboardStatus';
  activeUsers: Scalars['Int']['output'];
  lastActivity?: Maybe<Scalars['String']['output']>;
  recentActivity: Array<ActivityEntry>;
  status: Scalars['String']['output'];
  systemHealth: SystemHealth;
  /** share of successful database probes since the process started, e.g. "100.00%" */
  uptime: Scalars['String']['output'];
};

export type DateRangeInput = {
  /** ISO 8601 timestamp or YYYY-MM-DD (a date means the end of that day) */
  end: Scalars['String']['input'];
  /** ISO 8601 timestamp or YYYY-MM-DD */
  start: Scalars['String']['input'];
};

export type DeleteRequirementResult = {
  __typename?: 'DeleteRequirementResult';
  deleted: Scalars['Boolean']['output'];
  deletedAt: Scalars['String']['output'];
  id: Scalars['String']['output'];
};

export type DeleteResult = {
  __typename?: 'DeleteResult';
  deleted: Scalars['Boolean']['output'];
};

/** provider_b emotion controls, each -1 to 1 */
export type EmotionInput = {
  energy?: InputMaybe<Scalars['Float']['input']>;
  positivity?: InputMaybe<Scalars['Float']['input']>;
};

export type Finding = {
  __typename?: 'Finding';
  createdAt: Scalars['String']['output'];
  description?: Maybe<Scalars['String']['output']>;
  discoveredAt: Scalars['String']['output'];
  dueDate?: Maybe<Scalars['String']['output']>;
  evidence: Array<Scalars['String']['output']>;
  framework: Scalars['String']['output'];
  id: Scalars['String']['output'];
  requirementId?: Maybe<Scalars['String']['output']>;
  resolution?: Maybe<Scalars['String']['output']>;
  resolvedAt?: Maybe<Scalars['String']['output']>;
  /** low, medium, high or critical */
  severity: Scalars['String']['output'];
  /** open, in-progress or resolved */
  status: Scalars['String']['output'];
  title: Scalars['String']['output'];
  updatedAt: Scalars['String']['output'];
};

export type FindingFilter = {
  framework?: InputMaybe<Scalars['String']['input']>;
  requirementId?: InputMaybe<Scalars['String']['input']>;
  severity?: InputMaybe<Scalars['String']['input']>;
  status?: InputMaybe<Scalars['String']['input']>;
};

export type FindingPage = {
  __typename?: 'FindingPage';
  data: Array<Finding>;
  pagination: Pagination;
};

export type Framework = {
  __typename?: 'Framework';
  categories: Array<Scalars['String']['output']>;
  description: Scalars['String']['output'];
  id: Scalars['String']['output'];
  name: Scalars['String']['output'];
  /** number of catalogue clauses */
  requirementCount: Scalars['Int']['output'];
  requirements: Array<FrameworkClause>;
  supported: Scalars['Boolean']['output'];
  validationRules: Array<ValidationRuleInfo>;
  version: Scalars['String']['output'];
};

export type FrameworkClause = {
  __typename?: 'FrameworkClause';
  description: Scalars['String']['output'];
  id: Scalars['String']['output'];
  section: Scalars['String']['output'];
  title: Scalars['String']['output'];
};

export type FrameworkInfo = {
  __typename?: 'FrameworkInfo';
  categories: Array<Scalars['String']['output']>;
  description: Scalars['String']['output'];
  id: Scalars['String']['output'];
  name: Scalars['String']['output'];
  /** number of catalogue clauses */
  requirementCount: Scalars['Int']['output'];
  supported: Scalars['Boolean']['output'];
  version: Scalars['String']['output'];
};

export type FrameworkRequirementCounts = {
  __typename?: 'FrameworkRequirementCounts';
  completed: Scalars['Int']['output'];
  inProgress: Scalars['Int']['output'];
  pending: Scalars['Int']['output'];
  total: Scalars['Int']['output'];
};

export type FrameworkScore = {
  __typename?: 'FrameworkScore';
  lastAssessed?: Maybe<Scalars['String']['output']>;
  name: Scalars['String']['output'];
  score: Scalars['Float']['output'];
  status: Scalars['String']['output'];
};

/** One framework of the compliance status (REST keys these by framework id) */
export type FrameworkStatus = {
  __typename?: 'FrameworkStatus';
  framework: Scalars['String']['output'];
  lastAssessment?: Maybe<Scalars['String']['output']>;
  requirements: FrameworkRequirementCounts;
  score: Scalars['Float']['output'];
  /** compliant, mostly-compliant, partially-compliant, non-compliant or not-assessed */
  status: Scalars['String']['output'];
};

export type GenerateInput = {
  metadata?: InputMaybe<TtsMetadataInput>;
  options?: InputMaybe<TtsOptionsInput>;
  text: Scalars['String']['input'];
};

export type GenerationMetadata = {
  __typename?: 'GenerationMetadata';
  fileSize: Scalars['Int']['output'];
  format?: Maybe<Scalars['String']['output']>;
  generatedAt: Scalars['String']['output'];
  provider: Scalars['String']['output'];
  voice: Scalars['String']['output'];
};

/** One event of progressive generation: started, progress, complete or error */
export type GenerationProgressEvent = {
  __typename?: 'GenerationProgressEvent';
  audioUrl?: Maybe<Scalars['String']['output']>;
  cached?: Maybe<Scalars['Boolean']['output']>;
  chunks?: Maybe<Scalars['Int']['output']>;
  code?: Maybe<Scalars['String']['output']>;
  completed?: Maybe<Scalars['Int']['output']>;
  duration?: Maybe<Scalars['Float']['output']>;
  hash?: Maybe<Scalars['String']['output']>;
  message?: Maybe<Scalars['String']['output']>;
  metadata?: Maybe<GenerationMetadata>;
  /** milliseconds */
  parallelTime?: Maybe<Scalars['Float']['output']>;
  /** percent */
  progress?: Maybe<Scalars['Float']['output']>;
  total?: Maybe<Scalars['Int']['output']>;
  totalChunks?: Maybe<Scalars['Int']['output']>;
  type: Scalars['String']['output'];
};

export type GenerationResult = {
  __typename?: 'GenerationResult';
  audioUrl: Scalars['String']['output'];
  cached: Scalars['Boolean']['output'];
  /** USD */
  cost: Scalars['Float']['output'];
  /** seconds */
  duration: Scalars['Float']['output'];
  hash: Scalars['String']['output'];
  metadata: GenerationMetadata;
};

export type HashExistsResult = {
  __typename?: 'HashExistsResult';
  exists: Scalars['Boolean']['output'];
  hashMode: Scalars['String']['output'];
  hashes: Hashes;
};

export type HashInfo = {
  __typename?: 'HashInfo';
  hashes: Hashes;
  text: TextInfo;
};

export type HashInput = {
  allowFallback?: InputMaybe<Scalars['Boolean']['input']>;
  /** direct, content or semantic */
  hashMode?: InputMaybe<Scalars['String']['input']>;
  options?: InputMaybe<TtsOptionsInput>;
  text: Scalars['String']['input'];
};

export type HashLookupResult = {
  __typename?: 'HashLookupResult';
  audioUrl?: Maybe<Scalars['String']['output']>;
  confidence?: Maybe<Scalars['Float']['output']>;
  found: Scalars['Boolean']['output'];
  hash?: Maybe<Scalars['String']['output']>;
  hashes?: Maybe<Hashes>;
  message?: Maybe<Scalars['String']['output']>;
  metadata?: Maybe<LookupMetadata>;
  mode?: Maybe<Scalars['String']['output']>;
};

export type Hashes = {
  __typename?: 'Hashes';
  content: Scalars['String']['output'];
  direct: Scalars['String']['output'];
  semantic: Scalars['String']['output'];
};

export type Health = {
  __typename?: 'Health';
  environment?: Maybe<Scalars['String']['output']>;
  service?: Maybe<Scalars['String']['output']>;
  status: Scalars['String']['output'];
  timestamp: Scalars['String']['output'];
  uptime: Scalars['Int']['output'];
  version?: Maybe<Scalars['String']['output']>;
};

export type HistoryPoint = {
  __typename?: 'HistoryPoint';
  timestamp: Scalars['String']['output'];
  value: Scalars['Float']['output'];
};

export type Implementation = {
  __typename?: 'Implementation';
  completedAt?: Maybe<Scalars['String']['output']>;
  gitBranch?: Maybe<Scalars['String']['output']>;
  relatedIssues?: Maybe<Array<Scalars['String']['output']>>;
  testFile?: Maybe<Scalars['String']['output']>;
};

export type ImplementationInput = {
  /** ISO 8601; set automatically on completion when absent */
  completedAt?: InputMaybe<Scalars['String']['input']>;
  gitBranch?: InputMaybe<Scalars['String']['input']>;
  relatedIssues?: InputMaybe<Array<Scalars['String']['input']>>;
  testFile?: InputMaybe<Scalars['String']['input']>;
};

export type IssuedApiKey = {
  __typename?: 'IssuedApiKey';
  createdAt: Scalars['String']['output'];
  expiresAt?: Maybe<Scalars['String']['output']>;
  id: Scalars['String']['output'];
  /** the secret; shown only here */
  key: Scalars['String']['output'];
  name: Scalars['String']['output'];
  permissions: Array<Scalars['String']['output']>;
  plan: Scalars['String']['output'];
};

export type Liveness = {
  __typename?: 'Liveness';
  live: Scalars['Boolean']['output'];
  timestamp: Scalars['String']['output'];
};

export type LookupMetadata = {
  __typename?: 'LookupMetadata';
  duration: Scalars['Float']['output'];
  fileSize: Scalars['Int']['output'];
  generatedAt: Scalars['String']['output'];
  provider: Scalars['String']['output'];
  voice: Scalars['String']['output'];
};

export type MessageResult = {
  __typename?: 'MessageResult';
  message: Scalars['String']['output'];
};

export type Mutation = {
  __typename?: 'Mutation';
  /** POST /api/compliance/{framework}/assess */
  assessCompliance: FrameworkStatus;
  /** POST /v1/requirements/batch */
  batchCreateRequirements: BatchCreateResult;
  /** PATCH /v1/requirements/batch */
  batchUpdateRequirementStatus: BatchStatusResult;
  clearCache: MessageResult;
  /** POST /v1/auth/api-keys */
  createApiKey: IssuedApiKey;
  /** POST /v1/audits/findings */
  createFinding: Finding;
  /** POST /v1/requirements */
  createRequirement: Requirement;
  /** POST /v1/webhooks */
  createWebhook: CreatedWebhook;
  deleteCacheEntry: DeleteResult;
  /** DELETE /api/requirements/{id} (soft delete) */
  deleteRequirement: DeleteRequirementResult;
  /** DELETE /v1/webhooks/{id} */
  deleteWebhook: Scalars['Boolean']['output'];
  /** Convert text to speech (POST /api/v1/generate) */
  generate: GenerationResult;
  /** POST /v1/compliance/reports */
  requestComplianceReport: ReportStatus;
  /** POST /v1/dashboard/reports */
  requestDashboardReport: ReportStatus;
  /** DELETE /v1/auth/api-keys/{id} */
  revokeApiKey: RevokeApiKeyResult;
  /** PATCH /v1/audits/findings/{id} */
  updateFinding: Finding;
  /** PUT /v1/requirements/{id} (partial) */
  updateRequirement: Requirement;
  /** POST /v1/requirements/{id}/validate */
  validateRequirement: ValidationResult;
};


export type MutationAssessComplianceArgs = {
  framework: Scalars['String']['input'];
};


export type MutationBatchCreateRequirementsArgs = {
  requirements: Array<CreateRequirementInput>;
};


export type MutationBatchUpdateRequirementStatusArgs = {
  updates: Array<StatusUpdateInput>;
};


export type MutationCreateApiKeyArgs = {
  input: CreateApiKeyInput;
};


export type MutationCreateFindingArgs = {
  input: CreateFindingInput;
};


export type MutationCreateRequirementArgs = {
  input: CreateRequirementInput;
};


export type MutationCreateWebhookArgs = {
  input: CreateWebhookInput;
};


export type MutationDeleteCacheEntryArgs = {
  hash: Scalars['String']['input'];
};


export type MutationDeleteRequirementArgs = {
  id: Scalars['String']['input'];
};


export type MutationDeleteWebhookArgs = {
  id: Scalars['String']['input'];
};


export type MutationGenerateArgs = {
  input: GenerateInput;
};


export type MutationRequestComplianceReportArgs = {
  input: ComplianceReportInput;
};


export type MutationRequestDashboardReportArgs = {
  input: DashboardReportInput;
};


export type MutationRevokeApiKeyArgs = {
  id: Scalars['String']['input'];
};


export type MutationUpdateFindingArgs = {
  id: Scalars['String']['input'];
  input: UpdateFindingInput;
};


export type MutationUpdateRequirementArgs = {
  id: Scalars['String']['input'];
  input: UpdateRequirementInput;
};


export type MutationValidateRequirementArgs = {
  id: Scalars['String']['input'];
};

export type Pagination = {
  __typename?: 'Pagination';
  hasMore: Scalars['Boolean']['output'];
  limit: Scalars['Int']['output'];
  offset: Scalars['Int']['output'];
  total: Scalars['Int']['output'];
};

export type ProjectInfo = {
  __typename?: 'ProjectInfo';
  lastUpdated: Scalars['String']['output'];
  name: Scalars['String']['output'];
  version: Scalars['String']['output'];
};

export type Provider = {
  __typename?: 'Provider';
  configured: Scalars['Boolean']['output'];
  default: Scalars['Boolean']['output'];
  displayName: Scalars['String']['output'];
  formats: Array<Scalars['String']['output']>;
  languages: Array<Scalars['String']['output']>;
  name: Scalars['String']['output'];
  qualities: Array<Scalars['String']['output']>;
  speed: SpeedRange;
  voices: Array<Scalars['String']['output']>;
};

export type ProviderStatsEntry = {
  __typename?: 'ProviderStatsEntry';
  /** milliseconds */
  avgLatency: Scalars['Float']['output'];
  charactersProcessed: Scalars['Float']['output'];
  errors: Scalars['Float']['output'];
  provider: Scalars['String']['output'];
  requests: Scalars['Float']['output'];
  totalCost: Scalars['Float']['output'];
};

export type Query = {
  __typename?: 'Query';
  /** HEAD /api/v1/audio/{hash} */
  audioExists: Scalars['Boolean']['output'];
  /** GET /api/v1/audio/{hash}/metadata */
  audioMetadata: AudioMetadata;
  cacheStats: CacheStats;
  /** GET /v1/compliance/reports/{reportId} */
  complianceReport: ReportStatus;
  /** GET /v1/compliance/status */
  complianceStatus: ComplianceStatus;
  /** GET /v1/dashboard/history */
  dashboardHistory: DashboardHistory;
  /** GET /v1/dashboard/metrics */
  dashboardMetrics: DashboardMetrics;
  /** GET /v1/dashboard/reports/{reportId} */
  dashboardReport: ReportStatus;
  /** GET /api/dashboard/reports */
  dashboardReports: Array<ReportStatus>;
  /** GET /v1/dashboard/status */
  dashboardStatus: DashboardStatus;
  estimate: CostEstimate;
  /** GET /v1/audits/findings */
  findings: FindingPage;
  /** GET /v1/frameworks/{id} */
  framework: Framework;
  /** GET /v1/frameworks (with clauses and validation rules) */
  frameworks: Array<Framework>;
  hashExists: HashExistsResult;
  hashInfo: HashInfo;
  hashLookup: HashLookupResult;
  health: Health;
  languages: Array<Scalars['String']['output']>;
  live: Liveness;
  providerStats: Array<ProviderStatsEntry>;
  providers: Array<Provider>;
  ready: Readiness;
  /** GET /v1/requirements/{id} */
  requirement: Requirement;
  /** GET /v1/requirements (limit default 50, at most 200), newest first */
  requirements: RequirementPage;
  voices: Array<Scalars['String']['output']>;
  /** GET /v1/webhooks/{id}/deliveries */
  webhookDeliveries: Array<WebhookDeliveryInfo>;
  /** GET /v1/webhooks */
  webhooks: Array<WebhookInfo>;
};


export type QueryAudioExistsArgs = {
  hash: Scalars['String']['input'];
};


export type QueryAudioMetadataArgs = {
  hash: Scalars['String']['input'];
};


export type QueryComplianceReportArgs = {
  reportId: Scalars['String']['input'];
};


export type QueryComplianceStatusArgs = {
  framework?: InputMaybe<Scalars['String']['input']>;
};


export type QueryDashboardHistoryArgs = {
  framework?: InputMaybe<Scalars['String']['input']>;
  metric?: InputMaybe<Scalars['String']['input']>;
  period?: InputMaybe<Scalars['String']['input']>;
};


export type QueryDashboardReportArgs = {
  reportId: Scalars['String']['input'];
};


export type QueryDashboardReportsArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
};


export type QueryEstimateArgs = {
  input: GenerateInput;
};


export type QueryFindingsArgs = {
  filter?: InputMaybe<FindingFilter>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
};


export type QueryFrameworkArgs = {
  id: Scalars['String']['input'];
};


export type QueryHashExistsArgs = {
  input: HashInput;
};


export type QueryHashInfoArgs = {
  input: HashInput;
};


export type QueryHashLookupArgs = {
  input: HashInput;
};


export type QueryLanguagesArgs = {
  provider?: InputMaybe<Scalars['String']['input']>;
};


export type QueryRequirementArgs = {
  id: Scalars['String']['input'];
};


export type QueryRequirementsArgs = {
  filter?: InputMaybe<RequirementFilter>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
};


export type QueryVoicesArgs = {
  provider?: InputMaybe<Scalars['String']['input']>;
};


export type QueryWebhookDeliveriesArgs = {
  id: Scalars['String']['input'];
  limit?: InputMaybe<Scalars['Int']['input']>;
};

export type Readiness = {
  __typename?: 'Readiness';
  ready: Scalars['Boolean']['output'];
  timestamp: Scalars['String']['output'];
};

/** A compliance or dashboard report and where to download it once completed */
export type ReportStatus = {
  __typename?: 'ReportStatus';
  createdAt: Scalars['String']['output'];
  /** REST path of the file */
  downloadUrl?: Maybe<Scalars['String']['output']>;
  error?: Maybe<Scalars['String']['output']>;
  estimatedCompletion: Scalars['String']['output'];
  expiresAt?: Maybe<Scalars['String']['output']>;
  format: Scalars['String']['output'];
  framework?: Maybe<Scalars['String']['output']>;
  generatedAt?: Maybe<Scalars['String']['output']>;
  reportId: Scalars['String']['output'];
  size?: Maybe<Scalars['Int']['output']>;
  /** generating, completed or failed */
  status: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

export type Requirement = {
  __typename?: 'Requirement';
  acceptanceCriteria: Array<Scalars['String']['output']>;
  category?: Maybe<Scalars['String']['output']>;
  createdAt: Scalars['String']['output'];
  description?: Maybe<Scalars['String']['output']>;
  /** Audit findings recorded against this requirement (needs read:audits; null with an error without it) */
  findings?: Maybe<Array<Finding>>;
  /** iso13485, fda21cfr11, gdpr or soc2 */
  framework: Scalars['String']['output'];
  /** The framework from the catalogue */
  frameworkInfo?: Maybe<FrameworkInfo>;
  id: Scalars['String']['output'];
  implementation?: Maybe<Implementation>;
  /** critical, high, medium or low */
  priority: Scalars['String']['output'];
  /** pending, in-progress or completed */
  status: Scalars['String']['output'];
  technicalContext?: Maybe<TechnicalContext>;
  title: Scalars['String']['output'];
  updatedAt: Scalars['String']['output'];
  validation?: Maybe<RequirementValidation>;
};

export type RequirementCounts = {
  __typename?: 'RequirementCounts';
  completed: Scalars['Int']['output'];
  /** percent */
  completionRate: Scalars['Float']['output'];
  inProgress: Scalars['Int']['output'];
  pending: Scalars['Int']['output'];
  total: Scalars['Int']['output'];
};

export type RequirementFilter = {
  framework?: InputMaybe<Scalars['String']['input']>;
  priority?: InputMaybe<Scalars['String']['input']>;
  status?: InputMaybe<Scalars['String']['input']>;
};

export type RequirementPage = {
  __typename?: 'RequirementPage';
  data: Array<Requirement>;
  pagination: Pagination;
};

/** The latest recorded validation of a requirement */
export type RequirementValidation = {
  __typename?: 'RequirementValidation';
  issues: Array<ValidationIssue>;
  lastValidated: Scalars['String']['output'];
  score: Scalars['Int']['output'];
  /** passed or failed */
  status: Scalars['String']['output'];
};

export type RevokeApiKeyResult = {
  __typename?: 'RevokeApiKeyResult';
  id: Scalars['String']['output'];
  revoked: Scalars['Boolean']['output'];
};

export type SpeedRange = {
  __typename?: 'SpeedRange';
  max: Scalars['Float']['output'];
  min: Scalars['Float']['output'];
};

export type StatusUpdateError = {
  __typename?: 'StatusUpdateError';
  id?: Maybe<Scalars['String']['output']>;
  index: Scalars['Int']['output'];
  message: Scalars['String']['output'];
};

export type StatusUpdateInput = {
  id: Scalars['String']['input'];
  status: Scalars['String']['input'];
};

export type StatusUpdated = {
  __typename?: 'StatusUpdated';
  id: Scalars['String']['output'];
  status: Scalars['String']['output'];
};

export type Subscription = {
  __typename?: 'Subscription';
  /** Live compliance events; `types` filters by dotted type or WebSocket type (none = all). Needs read:dashboard. */
  complianceEvents: ComplianceEvent;
  /** Progressive generation: the same started/progress/complete/error events as the SSE stream */
  generateProgressive: GenerationProgressEvent;
};


export type SubscriptionComplianceEventsArgs = {
  types?: InputMaybe<Array<Scalars['String']['input']>>;
};


export type SubscriptionGenerateProgressiveArgs = {
  input: GenerateInput;
};

export type SystemHealth = {
  __typename?: 'SystemHealth';
  compliance: Scalars['String']['output'];
  monitoring: Scalars['String']['output'];
  validation: Scalars['String']['output'];
};

export type TechnicalContext = {
  __typename?: 'TechnicalContext';
  dataFlow?: Maybe<Scalars['String']['output']>;
  relatedComponents?: Maybe<Array<Scalars['String']['output']>>;
  scope?: Maybe<Scalars['String']['output']>;
};

export type TechnicalContextInput = {
  dataFlow?: InputMaybe<Scalars['String']['input']>;
  relatedComponents?: InputMaybe<Array<Scalars['String']['input']>>;
  scope?: InputMaybe<Scalars['String']['input']>;
};

export type TextInfo = {
  __typename?: 'TextInfo';
  length: Scalars['Int']['output'];
  original: Scalars['String']['output'];
};

export type TtsMetadataInput = {
  contentId?: InputMaybe<Scalars['String']['input']>;
  priority?: InputMaybe<Scalars['Int']['input']>;
  tags?: InputMaybe<Array<Scalars['String']['input']>>;
  userId?: InputMaybe<Scalars['String']['input']>;
};

export type TtsOptionsInput = {
  cache?: InputMaybe<Scalars['Boolean']['input']>;
  emotion?: InputMaybe<EmotionInput>;
  /** mp3, wav or ogg */
  format?: InputMaybe<Scalars['String']['input']>;
  language?: InputMaybe<Scalars['String']['input']>;
  /** semitones, -50 to 50 (provider_c) */
  pitch?: InputMaybe<Scalars['Float']['input']>;
  /** provider_a, provider_b, provider_c or mock */
  provider?: InputMaybe<Scalars['String']['input']>;
  quality?: InputMaybe<Scalars['String']['input']>;
  speed?: InputMaybe<Scalars['Float']['input']>;
  /** cache lifetime in seconds */
  ttl?: InputMaybe<Scalars['Int']['input']>;
  voice?: InputMaybe<Scalars['String']['input']>;
};

export type UpdateFindingInput = {
  description?: InputMaybe<Scalars['String']['input']>;
  dueDate?: InputMaybe<Scalars['String']['input']>;
  /** appended to the recorded evidence */
  evidence?: InputMaybe<Array<Scalars['String']['input']>>;
  resolution?: InputMaybe<Scalars['String']['input']>;
  resolvedAt?: InputMaybe<Scalars['String']['input']>;
  severity?: InputMaybe<Scalars['String']['input']>;
  status?: InputMaybe<Scalars['String']['input']>;
};

/** Partial update: only the fields given change */
export type UpdateRequirementInput = {
  acceptanceCriteria?: InputMaybe<Array<Scalars['String']['input']>>;
  category?: InputMaybe<Scalars['String']['input']>;
  description?: InputMaybe<Scalars['String']['input']>;
  framework?: InputMaybe<Scalars['String']['input']>;
  implementation?: InputMaybe<ImplementationInput>;
  priority?: InputMaybe<Scalars['String']['input']>;
  status?: InputMaybe<Scalars['String']['input']>;
  technicalContext?: InputMaybe<TechnicalContextInput>;
  title?: InputMaybe<Scalars['String']['input']>;
};

export type ValidationIssue = {
  __typename?: 'ValidationIssue';
  field: Scalars['String']['output'];
  message: Scalars['String']['output'];
  ruleId: Scalars['String']['output'];
  /** error, warning or info */
  severity: Scalars['String']['output'];
};

export type ValidationResult = {
  __typename?: 'ValidationResult';
  /** framework id → clause references */
  complianceMapping: Scalars['JSONObject']['output'];
  issues: Array<ValidationIssue>;
  score: Scalars['Int']['output'];
  suggestions: Array<Scalars['String']['output']>;
  valid: Scalars['Boolean']['output'];
};

export type ValidationRuleInfo = {
  __typename?: 'ValidationRuleInfo';
  description: Scalars['String']['output'];
  id: Scalars['String']['output'];
  name: Scalars['String']['output'];
};

export type WebhookDeliveryInfo = {
  __typename?: 'WebhookDeliveryInfo';
  attempts: Scalars['Int']['output'];
  createdAt: Scalars['String']['output'];
  deliveredAt?: Maybe<Scalars['String']['output']>;
  eventId: Scalars['String']['output'];
  id: Scalars['String']['output'];
  lastError?: Maybe<Scalars['String']['output']>;
  lastStatusCode?: Maybe<Scalars['Int']['output']>;
  nextAttemptAt?: Maybe<Scalars['String']['output']>;
  status: Scalars['String']['output'];
  type: Scalars['String']['output'];
  webhookId: Scalars['String']['output'];
};

export type WebhookInfo = {
  __typename?: 'WebhookInfo';
  createdAt: Scalars['String']['output'];
  events: Array<Scalars['String']['output']>;
  id: Scalars['String']['output'];
  url: Scalars['String']['output'];
};

/** provider_b emotion controls, each -1 to 1 */
export type EmotionInput = {
  energy?: number | null | undefined;
  positivity?: number | null | undefined;
};

export type GenerateInput = {
  metadata?: TtsMetadataInput | null | undefined;
  options?: TtsOptionsInput | null | undefined;
  text: string;
};

export type TtsMetadataInput = {
  contentId?: string | null | undefined;
  priority?: number | null | undefined;
  tags?: Array<string> | null | undefined;
  userId?: string | null | undefined;
};

export type TtsOptionsInput = {
  cache?: boolean | null | undefined;
  emotion?: EmotionInput | null | undefined;
  /** mp3, wav or ogg */
  format?: string | null | undefined;
  language?: string | null | undefined;
  /** semitones, -50 to 50 (provider_c) */
  pitch?: number | null | undefined;
  /** provider_a, provider_b, provider_c or mock */
  provider?: string | null | undefined;
  quality?: string | null | undefined;
  speed?: number | null | undefined;
  /** cache lifetime in seconds */
  ttl?: number | null | undefined;
  voice?: string | null | undefined;
};

export type GenerateMutationVariables = Exact<{
  input: GenerateInput;
}>;


export type GenerateMutation = { generate: { hash: string, audioUrl: string, cached: boolean, duration: number, cost: number, metadata: { provider: string, voice: string, generatedAt: string, fileSize: number } } };

export type VoicesQueryVariables = Exact<{
  provider?: string | null | undefined;
}>;


export type VoicesQuery = { voices: Array<string> };

export type GenerateProgressiveSubscriptionVariables = Exact<{
  input: GenerateInput;
}>;


export type GenerateProgressiveSubscription = { generateProgressive: { type: string, totalChunks: number | null, completed: number | null, total: number | null, progress: number | null, hash: string | null, audioUrl: string | null, chunks: number | null, duration: number | null } };


export const GenerateDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"Generate"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"GenerateInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"generate"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hash"}},{"kind":"Field","name":{"kind":"Name","value":"audioUrl"}},{"kind":"Field","name":{"kind":"Name","value":"cached"}},{"kind":"Field","name":{"kind":"Name","value":"duration"}},{"kind":"Field","name":{"kind":"Name","value":"cost"}},{"kind":"Field","name":{"kind":"Name","value":"metadata"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"provider"}},{"kind":"Field","name":{"kind":"Name","value":"voice"}},{"kind":"Field","name":{"kind":"Name","value":"generatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"fileSize"}}]}}]}}]}}]} as unknown as DocumentNode<GenerateMutation, GenerateMutationVariables>;
export const VoicesDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Voices"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"provider"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"voices"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"provider"},"value":{"kind":"Variable","name":{"kind":"Name","value":"provider"}}}]}]}}]} as unknown as DocumentNode<VoicesQuery, VoicesQueryVariables>;
export const GenerateProgressiveDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"GenerateProgressive"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"GenerateInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"generateProgressive"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"totalChunks"}},{"kind":"Field","name":{"kind":"Name","value":"completed"}},{"kind":"Field","name":{"kind":"Name","value":"total"}},{"kind":"Field","name":{"kind":"Name","value":"progress"}},{"kind":"Field","name":{"kind":"Name","value":"hash"}},{"kind":"Field","name":{"kind":"Name","value":"audioUrl"}},{"kind":"Field","name":{"kind":"Name","value":"chunks"}},{"kind":"Field","name":{"kind":"Name","value":"duration"}}]}}]}}]} as unknown as DocumentNode<GenerateProgressiveSubscription, GenerateProgressiveSubscriptionVariables>;