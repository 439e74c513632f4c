import { z } from 'zod';
import { AudioFormat, Instant, Provider } from './common';

const Hashes = z.object({ direct: z.string(), content: z.string(), semantic: z.string() });

export const GenerationResult = z.object({
  hash: z.string(),
  audioUrl: z.string(),
  cached: z.boolean(),
  duration: z.number(),
  cost: z.number(),
  metadata: z.object({ provider: Provider, voice: z.string(), generatedAt: Instant, fileSize: z.number().int(), format: AudioFormat }),
});

export const AudioMetadata = z.object({
  hash: z.string(),
  provider: Provider,
  voice: z.string(),
  language: z.string(),
  format: AudioFormat,
  quality: z.string(),
  speed: z.number(),
  duration: z.number(),
  fileSize: z.number().int(),
  generatedAt: Instant,
  lastAccessedAt: Instant,
  accessCount: z.number().int(),
  expiresAt: Instant.nullable(),
  originalText: z.string(),
  normalizedText: z.string(),
  sampleRate: z.number().int(),
  bitrate: z.number().int(),
  cost: z.object({ amount: z.number(), currency: z.string(), charactersCharged: z.number().int() }),
  hashes: Hashes,
  requestMetadata: z.record(z.string(), z.unknown()).nullable(),
});

export const CostEstimate = z.object({
  cost: z.number(),
  characterCount: z.number().int(),
  currency: z.literal('USD'),
  provider: Provider,
  quality: z.string(),
});

export const ProviderList = z.object({
  providers: z.array(
    z.object({
      name: Provider,
      displayName: z.string(),
      configured: z.boolean(),
      voices: z.array(z.string()),
      languages: z.array(z.string()),
      formats: z.array(AudioFormat),
      speed: z.object({ min: z.number(), max: z.number() }),
      qualities: z.array(z.string()),
      default: z.boolean(),
      defaults: z
        .object({ voice: z.string(), format: AudioFormat, quality: z.string(), speed: z.number(), language: z.string() })
        .describe('what a request that leaves an option out gets from this provider'),
    }),
  ),
});

export const VoiceList = z.object({ voices: z.array(z.string()) });
export const LanguageList = z.object({ languages: z.array(z.string()) });
export const HashInfo = z.object({ hashes: Hashes, text: z.object({ original: z.string(), length: z.number().int() }) });
export const HashLookup = z.union([
  z.object({
    found: z.literal(true),
    hash: z.string(),
    mode: z.enum(['direct', 'content', 'semantic']),
    confidence: z.number(),
    audioUrl: z.string(),
    metadata: z.object({ provider: Provider, voice: z.string(), duration: z.number(), fileSize: z.number().int(), generatedAt: Instant }),
  }),
  z.object({ found: z.literal(false), hashes: Hashes, message: z.string() }),
]);
export const HashExists = z.object({ exists: z.boolean(), hashMode: z.enum(['direct', 'content', 'semantic']), hashes: Hashes });
export const CacheEntryDeleted = z.object({ deleted: z.boolean() });
export const CacheStats = z.object({
  totalEntries: z.number().int(),
  totalSize: z.number().int(),
  oldestEntry: Instant.nullable(),
  newestEntry: Instant.nullable(),
  memoryTier: z.object({ entries: z.number().int(), bytes: z.number().int() }),
  storage: z.enum(['fs', 'database']),
});
export const CacheCleared = z.object({ message: z.string() });
const DatabaseHealth = z
  .object({
    state: z.enum(['up', 'unavailable', 'restarting', 'failed']),
    embedded: z
      .object({
        state: z.string(),
        restarts: z.number().int(),
        lastExit: z.object({ at: Instant, code: z.number().int().nullable(), signal: z.string().nullable() }).optional(),
      })
      .optional(),
  })
  .describe('The database: `up`, or why not (status is then `degraded`)');
export const Health = z.object({
  status: z.string().describe('`healthy`, or `degraded` while the database is not answering'),
  database: DatabaseHealth.optional(),
  timestamp: Instant,
  uptime: z.number().int(),
  environment: z.string(),
  version: z.string(),
  service: z.string(),
});
export const Ready = z.object({ ready: z.boolean(), timestamp: Instant, checks: z.object({ database: z.enum(['up', 'down']) }) });
export const Live = z.object({ live: z.boolean(), timestamp: Instant });
const ProviderCounters = z.object({
  requests: z.number().int(),
  charactersProcessed: z.number().int(),
  totalCost: z.number(),
  avgLatency: z.number(),
  errors: z.number().int(),
});
export const ProviderStats = z.object({ stats: z.record(z.string(), ProviderCounters), latencyUnit: z.literal('ms') });

const GenerationMetadataSchema = GenerationResult.shape.metadata;

export const QueuedGeneration = z.object({
  hash: z.string(),
  status: z.literal('queued'),
  statusUrl: z.string(),
  webhookSecret: z.string().optional().describe('The signing secret the gateway chose, when the request named none; shown only in this answer'),
});

export const GenerationStatus = z.object({
  hash: z.string(),
  status: z.enum(['queued', 'running', 'completed', 'failed']),
  statusUrl: z.string(),
  submittedAt: Instant.nullable(),
  finishedAt: Instant.nullable(),
  attempts: z.number().int(),
  audioUrl: z.string().optional(),
  duration: z.number().optional(),
  cached: z.boolean().optional(),
  metadata: GenerationMetadataSchema.optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  webhook: z.object({ status: z.enum(['pending', 'delivered', 'failed']), attempts: z.number().int(), lastError: z.string().nullable() }).nullable(),
});

/** What the webhook of an asynchronous generation receives (OpenAPI `webhooks`). */
export const GenerationWebhookBody = z.union([
  z.object({ hash: z.string(), audioUrl: z.string(), duration: z.number(), cached: z.boolean(), metadata: GenerationMetadataSchema }),
  z.object({ hash: z.string(), error: z.object({ code: z.string(), message: z.string() }) }),
]);
