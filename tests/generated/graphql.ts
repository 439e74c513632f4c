/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
/** An audio file format (REST: "mp3", "wav", "ogg") */
export type AudioFormat =
  /** REST "mp3" */
  | 'MP3'
  /** REST "ogg" */
  | 'OGG'
  /** REST "wav" */
  | 'WAV';

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

export type GenerateMutationVariables = Exact<{
  input: GenerateInput;
}>;


export type GenerateMutation = { generate: { hash: string, audioUrl: string, cached: boolean, duration: number, cost: number, metadata: { provider: ProviderId, voice: string, generatedAt: string, fileSize: number } } };

export type VoicesQueryVariables = Exact<{
  provider?: ProviderId | null | undefined;
}>;


export type VoicesQuery = { voices: Array<string> };

export type GenerateProgressiveSubscriptionVariables = Exact<{
  input: GenerateInput;
}>;


export type GenerateProgressiveSubscription = { generateProgressive: { type: GenerationEventType, totalChunks: number | null, streamUrl: string | null, completed: number | null, total: number | null, progress: number | null, chunkIndex: number | null, chunkAudioUrl: string | null, hash: string | null, audioUrl: string | null, chunks: number | null, duration: number | null } };


export const GenerateDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"Generate"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"GenerateInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"generate"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hash"}},{"kind":"Field","name":{"kind":"Name","value":"audioUrl"}},{"kind":"Field","name":{"kind":"Name","value":"cached"}},{"kind":"Field","name":{"kind":"Name","value":"duration"}},{"kind":"Field","name":{"kind":"Name","value":"cost"}},{"kind":"Field","name":{"kind":"Name","value":"metadata"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"provider"}},{"kind":"Field","name":{"kind":"Name","value":"voice"}},{"kind":"Field","name":{"kind":"Name","value":"generatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"fileSize"}}]}}]}}]}}]} as unknown as DocumentNode<GenerateMutation, GenerateMutationVariables>;
export const VoicesDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Voices"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"provider"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"ProviderId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"voices"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"provider"},"value":{"kind":"Variable","name":{"kind":"Name","value":"provider"}}}]}]}}]} as unknown as DocumentNode<VoicesQuery, VoicesQueryVariables>;
export const GenerateProgressiveDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"GenerateProgressive"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"GenerateInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"generateProgressive"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"totalChunks"}},{"kind":"Field","name":{"kind":"Name","value":"streamUrl"}},{"kind":"Field","name":{"kind":"Name","value":"completed"}},{"kind":"Field","name":{"kind":"Name","value":"total"}},{"kind":"Field","name":{"kind":"Name","value":"progress"}},{"kind":"Field","name":{"kind":"Name","value":"chunkIndex"}},{"kind":"Field","name":{"kind":"Name","value":"chunkAudioUrl"}},{"kind":"Field","name":{"kind":"Name","value":"hash"}},{"kind":"Field","name":{"kind":"Name","value":"audioUrl"}},{"kind":"Field","name":{"kind":"Name","value":"chunks"}},{"kind":"Field","name":{"kind":"Name","value":"duration"}}]}}]}}]} as unknown as DocumentNode<GenerateProgressiveSubscription, GenerateProgressiveSubscriptionVariables>;