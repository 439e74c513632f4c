/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
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

/** provider_b emotion controls, each -1 to 1 */
export type EmotionInput = {
  energy?: number | null | undefined;
  positivity?: number | null | undefined;
};

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

export type ImplementationInput = {
  /** ISO 8601; set automatically on completion when absent */
  completedAt?: string | null | undefined;
  gitBranch?: string | null | undefined;
  relatedIssues?: Array<string> | null | undefined;
  testFile?: string | null | undefined;
};

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

export type RequirementsQueryVariables = Exact<{
  filter?: RequirementFilter | null | undefined;
  limit?: number | null | undefined;
  offset?: number | null | undefined;
}>;


export type RequirementsQuery = { requirements: { data: Array<{ id: string, title: string, description: string | null, framework: FrameworkId | null, status: RequirementStatus, priority: Priority, createdAt: string, updatedAt: string }>, pagination: { total: number, limit: number, offset: number, hasMore: boolean } } };

export type RequirementQueryVariables = Exact<{
  id: string;
}>;


export type RequirementQuery = { requirement: { id: string, title: string, description: string | null, framework: FrameworkId | null, category: string | null, priority: Priority, status: RequirementStatus, acceptanceCriteria: Array<string>, createdAt: string, updatedAt: string } };

export type CreateRequirementMutationVariables = Exact<{
  input: CreateRequirementInput;
}>;


export type CreateRequirementMutation = { createRequirement: { id: string, title: string, framework: FrameworkId | null, priority: Priority, status: RequirementStatus, createdAt: string, updatedAt: string } };

export type UpdateRequirementMutationVariables = Exact<{
  id: string;
  input: UpdateRequirementInput;
}>;


export type UpdateRequirementMutation = { updateRequirement: { id: string, title: string, framework: FrameworkId | null, priority: Priority, status: RequirementStatus, updatedAt: string } };

export type ComplianceStatusQueryVariables = Exact<{ [key: string]: never; }>;


export type ComplianceStatusQuery = { complianceStatus: { overallScore: number, frameworks: Array<{ framework: FrameworkId, score: number, status: ComplianceLevel }> } };

export type GenerateSpeechMutationVariables = Exact<{
  input: GenerateInput;
}>;


export type GenerateSpeechMutation = { generate: { hash: string, audioUrl: string, cached: boolean, duration: number, cost: number, metadata: { provider: ProviderId, voice: string, generatedAt: string, fileSize: number } } };

export type ComplianceEventsSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type ComplianceEventsSubscription = { complianceEvents: { id: string, type: ComplianceEventType, wsType: DashboardEventType, createdAt: string, data: Record<string, unknown> } };

export type GenerateProgressiveSubscriptionVariables = Exact<{
  input: GenerateInput;
}>;


export type GenerateProgressiveSubscription = { generateProgressive: { type: GenerationEventType, totalChunks: number | null, streamUrl: string | null, completed: number | null, total: number | null, progress: number | null, chunkIndex: number | null, chunkAudioUrl: string | null, hash: string | null, audioUrl: string | null, cached: boolean | null, duration: number | null, chunks: number | null, parallelTime: number | null, message: string | null, code: string | null } };

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

export const RequirementsDocument = new TypedDocumentString(`
    query Requirements($filter: RequirementFilter, $limit: Int, $offset: Int) {
  requirements(filter: $filter, limit: $limit, offset: $offset) {
    data {
      id
      title
      description
      framework
      status
      priority
      createdAt
      updatedAt
    }
    pagination {
      total
      limit
      offset
      hasMore
    }
  }
}
    `) as unknown as TypedDocumentString<RequirementsQuery, RequirementsQueryVariables>;
export const RequirementDocument = new TypedDocumentString(`
    query Requirement($id: String!) {
  requirement(id: $id) {
    id
    title
    description
    framework
    category
    priority
    status
    acceptanceCriteria
    createdAt
    updatedAt
  }
}
    `) as unknown as TypedDocumentString<RequirementQuery, RequirementQueryVariables>;
export const CreateRequirementDocument = new TypedDocumentString(`
    mutation CreateRequirement($input: CreateRequirementInput!) {
  createRequirement(input: $input) {
    id
    title
    framework
    priority
    status
    createdAt
    updatedAt
  }
}
    `) as unknown as TypedDocumentString<CreateRequirementMutation, CreateRequirementMutationVariables>;
export const UpdateRequirementDocument = new TypedDocumentString(`
    mutation UpdateRequirement($id: String!, $input: UpdateRequirementInput!) {
  updateRequirement(id: $id, input: $input) {
    id
    title
    framework
    priority
    status
    updatedAt
  }
}
    `) as unknown as TypedDocumentString<UpdateRequirementMutation, UpdateRequirementMutationVariables>;
export const ComplianceStatusDocument = new TypedDocumentString(`
    query ComplianceStatus {
  complianceStatus {
    overallScore
    frameworks {
      framework
      score
      status
    }
  }
}
    `) as unknown as TypedDocumentString<ComplianceStatusQuery, ComplianceStatusQueryVariables>;
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
      generatedAt
      fileSize
    }
  }
}
    `) as unknown as TypedDocumentString<GenerateSpeechMutation, GenerateSpeechMutationVariables>;
export const ComplianceEventsDocument = new TypedDocumentString(`
    subscription ComplianceEvents {
  complianceEvents {
    id
    type
    wsType
    createdAt
    data
  }
}
    `) as unknown as TypedDocumentString<ComplianceEventsSubscription, ComplianceEventsSubscriptionVariables>;
export const GenerateProgressiveDocument = new TypedDocumentString(`
    subscription GenerateProgressive($input: GenerateInput!) {
  generateProgressive(input: $input) {
    type
    totalChunks
    streamUrl
    completed
    total
    progress
    chunkIndex
    chunkAudioUrl
    hash
    audioUrl
    cached
    duration
    chunks
    parallelTime
    message
    code
  }
}
    `) as unknown as TypedDocumentString<GenerateProgressiveSubscription, GenerateProgressiveSubscriptionVariables>;