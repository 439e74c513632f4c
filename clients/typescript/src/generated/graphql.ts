/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type CreateRequirementInput = {
  acceptanceCriteria?: Array<string> | null | undefined;
  category?: string | null | undefined;
  description?: string | null | undefined;
  framework: string;
  implementation?: ImplementationInput | null | undefined;
  /** critical, high, medium (default) or low */
  priority?: string | null | undefined;
  technicalContext?: TechnicalContextInput | null | undefined;
  title: string;
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

export type ImplementationInput = {
  /** ISO 8601; set automatically on completion when absent */
  completedAt?: string | null | undefined;
  gitBranch?: string | null | undefined;
  relatedIssues?: Array<string> | null | undefined;
  testFile?: string | null | undefined;
};

export type RequirementFilter = {
  framework?: string | null | undefined;
  priority?: string | null | undefined;
  status?: string | null | undefined;
};

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

/** Partial update: only the fields given change */
export type UpdateRequirementInput = {
  acceptanceCriteria?: Array<string> | null | undefined;
  category?: string | null | undefined;
  description?: string | null | undefined;
  framework?: string | null | undefined;
  implementation?: ImplementationInput | null | undefined;
  priority?: string | null | undefined;
  status?: string | null | undefined;
  technicalContext?: TechnicalContextInput | null | undefined;
  title?: string | null | undefined;
};

export type RequirementsQueryVariables = Exact<{
  filter?: RequirementFilter | null | undefined;
  limit?: number | null | undefined;
  offset?: number | null | undefined;
}>;


export type RequirementsQuery = { requirements: { data: Array<{ id: string, title: string, description: string | null, framework: string, status: string, priority: string, createdAt: string, updatedAt: string }>, pagination: { total: number, limit: number, offset: number, hasMore: boolean } } };

export type RequirementQueryVariables = Exact<{
  id: string;
}>;


export type RequirementQuery = { requirement: { id: string, title: string, description: string | null, framework: string, category: string | null, priority: string, status: string, acceptanceCriteria: Array<string>, createdAt: string, updatedAt: string } };

export type CreateRequirementMutationVariables = Exact<{
  input: CreateRequirementInput;
}>;


export type CreateRequirementMutation = { createRequirement: { id: string, title: string, framework: string, priority: string, status: string, createdAt: string, updatedAt: string } };

export type UpdateRequirementMutationVariables = Exact<{
  id: string;
  input: UpdateRequirementInput;
}>;


export type UpdateRequirementMutation = { updateRequirement: { id: string, title: string, framework: string, priority: string, status: string, updatedAt: string } };

export type ComplianceStatusQueryVariables = Exact<{ [key: string]: never; }>;


export type ComplianceStatusQuery = { complianceStatus: { overallScore: number, frameworks: Array<{ framework: string, score: number, status: string }> } };

export type GenerateSpeechMutationVariables = Exact<{
  input: GenerateInput;
}>;


export type GenerateSpeechMutation = { generate: { hash: string, audioUrl: string, cached: boolean, duration: number, cost: number, metadata: { provider: string, voice: string, generatedAt: string, fileSize: number } } };

export type ComplianceEventsSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type ComplianceEventsSubscription = { complianceEvents: { id: string, type: string, wsType: string, createdAt: string, data: Record<string, unknown> } };

export type GenerateProgressiveSubscriptionVariables = Exact<{
  input: GenerateInput;
}>;


export type GenerateProgressiveSubscription = { generateProgressive: { type: string, totalChunks: number | null, completed: number | null, total: number | null, progress: number | null, hash: string | null, audioUrl: string | null, cached: boolean | null, duration: number | null, chunks: number | null, parallelTime: number | null, message: string | null, code: string | null } };

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
    completed
    total
    progress
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