import { AudioFormatEnum, DeliveryStatusEnum, GenerationEventTypeEnum, GenerationStateEnum, HashModeEnum, ProviderIdEnum, QualityEnum } from './enums';
import { DateTimeScalar } from './scalars';
import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';

@InputType({ description: 'provider_b emotion controls, each -1 to 1' })
export class EmotionInput {
  @Field(() => Float, { nullable: true }) positivity?: number;
  @Field(() => Float, { nullable: true }) energy?: number;
}

@InputType()
export class TtsOptionsInput {
  @Field(() => ProviderIdEnum, { nullable: true }) provider?: string;
  @Field(() => String, { nullable: true }) voice?: string;
  @Field(() => Float, { nullable: true }) speed?: number;
  @Field(() => AudioFormatEnum, { nullable: true }) format?: string;
  @Field(() => QualityEnum, { nullable: true }) quality?: string;
  @Field(() => String, { nullable: true }) language?: string;
  @Field(() => Boolean, { nullable: true }) cache?: boolean;
  @Field(() => Int, { nullable: true, description: 'cache lifetime in seconds' }) ttl?: number;
  @Field(() => EmotionInput, { nullable: true }) emotion?: EmotionInput;
  @Field(() => Float, { nullable: true, description: 'semitones, -50 to 50 (provider_c)' }) pitch?: number;
}

@InputType()
export class TtsMetadataInput {
  @Field(() => String, { nullable: true }) contentId?: string;
  @Field(() => String, { nullable: true }) userId?: string;
  @Field(() => [String], { nullable: true }) tags?: string[];
  @Field(() => Int, { nullable: true }) priority?: number;
}

@InputType()
export class GenerateInput {
  @Field(() => String) text!: string;
  @Field(() => TtsOptionsInput, { nullable: true }) options?: TtsOptionsInput;
  @Field(() => TtsMetadataInput, { nullable: true }) metadata?: TtsMetadataInput;
}

@InputType()
export class HashInput {
  @Field(() => String) text!: string;
  @Field(() => TtsOptionsInput, { nullable: true }) options?: TtsOptionsInput;
  @Field(() => HashModeEnum, { nullable: true }) hashMode?: string;
  @Field(() => Boolean, { nullable: true }) allowFallback?: boolean;
}

@ObjectType()
export class GenerationMetadata {
  @Field(() => ProviderIdEnum) provider!: string;
  @Field(() => String) voice!: string;
  @Field(() => DateTimeScalar) generatedAt!: string;
  @Field(() => Int) fileSize!: number;
  @Field(() => AudioFormatEnum, { nullable: true }) format?: string;
}

@ObjectType()
export class GenerationResult {
  @Field(() => String) hash!: string;
  @Field(() => String) audioUrl!: string;
  @Field(() => Boolean) cached!: boolean;
  @Field(() => Float, { description: 'seconds' }) duration!: number;
  @Field(() => Float, { description: 'USD' }) cost!: number;
  @Field(() => GenerationMetadata) metadata!: GenerationMetadata;
}

@ObjectType()
export class Cost {
  @Field(() => Float) amount!: number;
  @Field(() => String) currency!: string;
  @Field(() => Int) charactersCharged!: number;
}

@ObjectType()
export class Hashes {
  @Field(() => String) direct!: string;
  @Field(() => String) content!: string;
  @Field(() => String) semantic!: string;
}

@ObjectType()
export class AudioMetadata {
  @Field(() => String) hash!: string;
  @Field(() => ProviderIdEnum) provider!: string;
  @Field(() => String) voice!: string;
  @Field(() => String) language!: string;
  @Field(() => AudioFormatEnum) format!: string;
  @Field(() => QualityEnum) quality!: string;
  @Field(() => Float) speed!: number;
  @Field(() => Float) duration!: number;
  @Field(() => Int) fileSize!: number;
  @Field(() => DateTimeScalar) generatedAt!: string;
  @Field(() => DateTimeScalar) lastAccessedAt!: string;
  @Field(() => Int) accessCount!: number;
  @Field(() => DateTimeScalar, { nullable: true }) expiresAt?: string | null;
  @Field(() => String) originalText!: string;
  @Field(() => String) normalizedText!: string;
  @Field(() => Int) sampleRate!: number;
  @Field(() => Int) bitrate!: number;
  @Field(() => Cost) cost!: Cost;
  @Field(() => Hashes) hashes!: Hashes;
}

@ObjectType()
export class CostEstimate {
  @Field(() => Float) cost!: number;
  @Field(() => Int) characterCount!: number;
  @Field(() => String) currency!: string;
  @Field(() => ProviderIdEnum) provider!: string;
  @Field(() => QualityEnum) quality!: string;
}

@ObjectType()
export class SpeedRange {
  @Field(() => Float) min!: number;
  @Field(() => Float) max!: number;
}

@ObjectType({ description: 'What a request that leaves an option out gets from this provider' })
export class ProviderDefaults {
  @Field(() => String) voice!: string;
  @Field(() => AudioFormatEnum) format!: string;
  @Field(() => QualityEnum) quality!: string;
  @Field(() => Float) speed!: number;
  @Field(() => String) language!: string;
}

@ObjectType()
export class Provider {
  @Field(() => ProviderIdEnum) name!: string;
  @Field(() => String) displayName!: string;
  @Field(() => Boolean) configured!: boolean;
  @Field(() => [String]) voices!: string[];
  @Field(() => [String]) languages!: string[];
  @Field(() => [AudioFormatEnum]) formats!: string[];
  @Field(() => SpeedRange) speed!: SpeedRange;
  @Field(() => [QualityEnum]) qualities!: string[];
  @Field(() => Boolean, { name: 'default' }) default!: boolean;
  @Field(() => ProviderDefaults) defaults!: ProviderDefaults;
}

@ObjectType()
export class TextInfo {
  @Field(() => String) original!: string;
  @Field(() => Int) length!: number;
}

@ObjectType()
export class HashInfo {
  @Field(() => Hashes) hashes!: Hashes;
  @Field(() => TextInfo) text!: TextInfo;
}

@ObjectType()
export class LookupMetadata {
  @Field(() => ProviderIdEnum) provider!: string;
  @Field(() => String) voice!: string;
  @Field(() => Float) duration!: number;
  @Field(() => Int) fileSize!: number;
  @Field(() => DateTimeScalar) generatedAt!: string;
}

@ObjectType()
export class HashLookupResult {
  @Field(() => Boolean) found!: boolean;
  @Field(() => String, { nullable: true }) hash?: string;
  @Field(() => HashModeEnum, { nullable: true }) mode?: string;
  @Field(() => Float, { nullable: true }) confidence?: number;
  @Field(() => String, { nullable: true }) audioUrl?: string;
  @Field(() => LookupMetadata, { nullable: true }) metadata?: LookupMetadata;
  @Field(() => Hashes, { nullable: true }) hashes?: Hashes;
  @Field(() => String, { nullable: true }) message?: string;
}

@ObjectType()
export class HashExistsResult {
  @Field(() => Boolean) exists!: boolean;
  @Field(() => HashModeEnum) hashMode!: string;
  @Field(() => Hashes) hashes!: Hashes;
}

@ObjectType()
export class CacheStats {
  @Field(() => Int) totalEntries!: number;
  @Field(() => Float, { description: 'bytes' }) totalSize!: number;
  @Field(() => DateTimeScalar, { nullable: true }) oldestEntry?: string | null;
  @Field(() => DateTimeScalar, { nullable: true }) newestEntry?: string | null;
}

@ObjectType()
export class ProviderStatsEntry {
  @Field(() => ProviderIdEnum) provider!: string;
  @Field(() => Float) requests!: number;
  @Field(() => Float) charactersProcessed!: number;
  @Field(() => Float) totalCost!: number;
  @Field(() => Float, { description: 'milliseconds' }) avgLatency!: number;
  @Field(() => Float) errors!: number;
}

@ObjectType()
export class Health {
  @Field(() => String) status!: string;
  @Field(() => DateTimeScalar) timestamp!: string;
  @Field(() => Int) uptime!: number;
  @Field(() => String, { nullable: true }) environment?: string;
  @Field(() => String, { nullable: true }) version?: string;
  @Field(() => String, { nullable: true }) service?: string;
}

@ObjectType()
export class Readiness {
  @Field(() => Boolean) ready!: boolean;
  @Field(() => DateTimeScalar) timestamp!: string;
}

@ObjectType()
export class Liveness {
  @Field(() => Boolean) live!: boolean;
  @Field(() => DateTimeScalar) timestamp!: string;
}

@ObjectType()
export class DeleteResult {
  @Field(() => Boolean) deleted!: boolean;
}

@ObjectType()
export class MessageResult {
  @Field(() => String) message!: string;
}

@ObjectType({ description: 'One event of progressive generation: started, progress, complete or error' })
export class GenerationProgressEvent {
  @Field(() => GenerationEventTypeEnum) type!: string;
  @Field(() => Int, { nullable: true }) totalChunks?: number;
  @Field(() => String, { nullable: true, description: 'started: the audio as one stream that begins at once (GET it)' }) streamUrl?: string;
  @Field(() => Int, { nullable: true, description: 'progress: the chunk whose audio is ready (in order from 0)' }) chunkIndex?: number;
  @Field(() => String, { nullable: true, description: 'progress: that chunk alone, playable on its own' }) chunkAudioUrl?: string;
  @Field(() => Int, { nullable: true }) completed?: number;
  @Field(() => Int, { nullable: true }) total?: number;
  @Field(() => Float, { nullable: true, description: 'percent' }) progress?: number;
  @Field(() => String, { nullable: true }) hash?: string;
  @Field(() => String, { nullable: true }) audioUrl?: string;
  @Field(() => Float, { nullable: true }) duration?: number;
  @Field(() => Int, { nullable: true }) chunks?: number;
  @Field(() => Float, { nullable: true, description: 'milliseconds' }) parallelTime?: number;
  @Field(() => Boolean, { nullable: true }) cached?: boolean;
  @Field(() => GenerationMetadata, { nullable: true }) metadata?: GenerationMetadata;
  @Field(() => String, { nullable: true }) message?: string;
  @Field(() => String, { nullable: true }) code?: string;
}

@InputType({ description: 'Where the outcome of an asynchronous generation is POSTed (signed like every webhook)' })
export class WebhookTargetInput {
  @Field(() => String, { description: 'public http(s) URL (the SSRF guard refuses private addresses)' }) url!: string;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'extra headers sent with the delivery (string values)' }) headers?: Record<string, string>;
  @Field(() => String, { nullable: true, description: 'signing secret, 16-200 characters; chosen by the gateway (and answered once) when absent' })
  secret?: string;
}

@ObjectType({ description: 'An asynchronous generation, queued' })
export class QueuedGeneration {
  @Field(() => String) hash!: string;
  @Field(() => GenerationStateEnum, { description: 'always QUEUED' }) status!: string;
  @Field(() => String, { description: 'GET it (REST) or query generation(hash)' }) statusUrl!: string;
  @Field(() => String, { nullable: true, description: 'the signing secret the gateway chose, when none was given; shown only here' }) webhookSecret?: string;
}

@ObjectType()
export class GenerationError {
  @Field(() => String) code!: string;
  @Field(() => String) message!: string;
}

@ObjectType()
export class WebhookDeliveryState {
  @Field(() => DeliveryStatusEnum) status!: string;
  @Field(() => Int) attempts!: number;
  @Field(() => String, { nullable: true }) lastError?: string | null;
}

@ObjectType({ description: 'The status of an asynchronous generation (GET /api/v1/generations/{hash})' })
export class GenerationStatusResult {
  @Field(() => String) hash!: string;
  @Field(() => GenerationStateEnum) status!: string;
  @Field(() => String) statusUrl!: string;
  @Field(() => DateTimeScalar, { nullable: true }) submittedAt?: string | null;
  @Field(() => DateTimeScalar, { nullable: true }) finishedAt?: string | null;
  @Field(() => Int) attempts!: number;
  @Field(() => String, { nullable: true }) audioUrl?: string;
  @Field(() => Float, { nullable: true }) duration?: number;
  @Field(() => Boolean, { nullable: true }) cached?: boolean;
  @Field(() => GenerationMetadata, { nullable: true }) metadata?: GenerationMetadata;
  @Field(() => GenerationError, { nullable: true }) error?: GenerationError;
  @Field(() => WebhookDeliveryState, { nullable: true }) webhook?: WebhookDeliveryState | null;
}

export { GraphQLJSONObject };
