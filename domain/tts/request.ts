import { z } from 'zod';
import { DomainError } from '../errors';
import { parseInput } from '../validation';
import {
  AUDIO_FORMATS,
  PROVIDER_CATALOGUE,
  PROVIDER_IDS,
  QUALITIES,
  isProviderId,
  matchLanguage,
  type AudioFormat,
  type ProviderId,
  type Quality,
} from './catalogue';
import type { AudioAffectingOptions } from './text';

/** Longest text accepted by one request (plain or progressive); longer text is refused with TEXT_TOO_LONG. */
export const MAX_TEXT_LENGTH = 100_000;
/** The format and speed of a request that names none (voice, quality and language are per provider). */
export const DEFAULT_FORMAT: AudioFormat = 'mp3';
export const DEFAULT_SPEED = 1;
/** Longest cache lifetime a caller may ask for: ten years. */
const MAX_TTL_SECONDS = 10 * 365 * 24 * 3600;

const finite = z.number().refine(Number.isFinite, 'must be a finite number');

/** Structure only; the provider-dependent rules (voice, speed range, …) follow in resolveRequest. */
export const TtsOptionsSchema = z
  .object({
    provider: z.string().max(40).optional(),
    voice: z.string().max(100).optional(),
    speed: finite.optional(),
    format: z.string().max(10).optional(),
    quality: z.string().max(20).optional(),
    language: z.string().max(20).optional(),
    cache: z.boolean().optional(),
    ttl: z.number().int('must be an integer number of seconds').min(1).max(MAX_TTL_SECONDS).optional(),
    emotion: z
      .object({ positivity: finite.min(-1).max(1).optional(), energy: finite.min(-1).max(1).optional() })
      .strict()
      .optional(),
    pitch: finite.min(-50).max(50).optional(),
    instructions: z.string().max(4096).optional(),
  })
  .strict();

/**
 * The options as clients see them: provider, format and quality are the closed sets they are. The
 * domain parses with TtsOptionsSchema (plain strings) so an unknown value gets INVALID_PROVIDER /
 * INVALID_FORMAT with the supported values; the REST document and the tRPC types use this one.
 */
export const TtsOptionsContract = TtsOptionsSchema.extend({
  provider: z.enum(PROVIDER_IDS as [ProviderId, ...ProviderId[]]).optional(),
  format: z.enum(AUDIO_FORMATS as [AudioFormat, ...AudioFormat[]]).optional(),
  quality: z.enum(QUALITIES as [Quality, ...Quality[]]).optional(),
});

/** A request schema with the documented options (see TtsOptionsContract). */
export const withOptionsContract = <S extends z.core.$ZodShape, C extends z.core.$ZodObjectConfig>(schema: z.ZodObject<S, C>) =>
  schema.extend({ options: TtsOptionsContract.optional() });

const TtsMetadataSchema = z
  .object({
    contentId: z.string().max(200).optional(),
    userId: z.string().max(200).optional(),
    tags: z.array(z.string().max(100)).max(50).optional(),
    priority: z.number().int().min(-1000).max(1000).optional(),
  })
  .strict();

export const GenerationRequestSchema = z.object({
  text: z.string({ error: 'text is required and must be a string' }),
  options: TtsOptionsSchema.optional(),
  metadata: TtsMetadataSchema.optional(),
});
/** GenerationRequestSchema as documented and typed for clients. */
export const GenerationRequestContract = withOptionsContract(GenerationRequestSchema);
export type GenerationRequestInput = z.input<typeof GenerationRequestSchema>;

export interface ResolvedRequest {
  text: string;
  options: AudioAffectingOptions & { provider: ProviderId; format: AudioFormat; quality: Quality };
  cache: boolean;
  ttlSeconds?: number;
  metadata?: z.infer<typeof TtsMetadataSchema>;
}

/**
 * Validates a generation request against the provider table and fills the defaults, so that
 * equal requests resolve to equal options (and so to equal hashes).
 */
export function resolveRequest(raw: unknown, defaultProvider: ProviderId): ResolvedRequest {
  const input = parseInput(GenerationRequestSchema, raw);
  const text = input.text;
  if (text.trim().length === 0) {
    throw new DomainError('VALIDATION_ERROR', 'text must not be empty', { fields: [{ field: 'text', message: 'must not be empty' }] });
  }
  if (text.length > MAX_TEXT_LENGTH) {
    throw new DomainError('TEXT_TOO_LONG', `text is ${text.length} characters; the maximum is ${MAX_TEXT_LENGTH}`, {
      details: { length: text.length, maxLength: MAX_TEXT_LENGTH },
      fields: [{ field: 'text', message: `at most ${MAX_TEXT_LENGTH} characters` }],
    });
  }
  const o = input.options ?? {};
  const providerName = o.provider ?? defaultProvider;
  if (!isProviderId(providerName)) {
    throw new DomainError('INVALID_PROVIDER', `Unknown provider '${providerName}'`, {
      details: { provider: providerName, supportedProviders: PROVIDER_IDS },
      fields: [{ field: 'options.provider', message: `must be one of ${PROVIDER_IDS.join(', ')}` }],
    });
  }
  const spec = PROVIDER_CATALOGUE[providerName];
  const provider = spec.id;

  const voice = o.voice ?? spec.voices[0];
  if (!spec.voices.includes(voice)) {
    throw new DomainError('INVALID_VOICE', `Voice '${voice}' is not supported by ${provider}`, {
      provider,
      details: { voice, supportedVoices: spec.voices },
    });
  }
  const speed = o.speed ?? DEFAULT_SPEED;
  if (speed < spec.speed[0] || speed > spec.speed[1]) {
    throw new DomainError('INVALID_SPEED', `Speed ${speed} is outside ${spec.speed[0]} to ${spec.speed[1]} for ${provider}`, {
      provider,
      details: { speed, min: spec.speed[0], max: spec.speed[1] },
    });
  }
  const format = (o.format ?? DEFAULT_FORMAT).toLowerCase();
  if (!(AUDIO_FORMATS as readonly string[]).includes(format)) {
    throw new DomainError('INVALID_FORMAT', `Format '${o.format}' is not supported`, {
      provider,
      details: { format: o.format, supportedFormats: AUDIO_FORMATS },
    });
  }
  const quality = resolveQuality(provider, o.quality);
  const language = o.language === undefined ? spec.defaultLanguage : matchLanguage(spec, o.language);
  if (!language) {
    throw new DomainError('INVALID_LANGUAGE', `Language '${o.language}' is not supported by ${provider}`, {
      provider,
      details: { language: o.language, supportedLanguages: spec.languages },
    });
  }
  if (o.emotion && !spec.supportsEmotion) {
    throw new DomainError('INVALID_OPTION', `emotion is supported only by provider_b`, {
      provider,
      details: { option: 'emotion' },
      fields: [{ field: 'options.emotion', message: `not supported by ${provider}` }],
    });
  }
  if (o.pitch !== undefined && !spec.supportsPitch) {
    throw new DomainError('INVALID_OPTION', `pitch is supported only by provider_c`, {
      provider,
      details: { option: 'pitch' },
      fields: [{ field: 'options.pitch', message: `not supported by ${provider}` }],
    });
  }
  const instructions = o.instructions?.trim() ? o.instructions : undefined;
  if (instructions !== undefined && !spec.supportsInstructions) {
    throw new DomainError('INVALID_OPTION', `instructions are supported only by provider_a`, {
      provider,
      details: { option: 'instructions' },
      fields: [{ field: 'options.instructions', message: `not supported by ${provider}` }],
    });
  }
  const emotion = o.emotion && Object.keys(o.emotion).length ? o.emotion : undefined;
  return {
    text,
    options: {
      provider,
      voice,
      speed,
      format: format as AudioFormat,
      quality,
      language,
      ...(emotion ? { emotion } : {}),
      ...(o.pitch !== undefined && o.pitch !== 0 ? { pitch: o.pitch } : {}),
      ...(instructions !== undefined ? { instructions } : {}),
    },
    cache: o.cache ?? true,
    ttlSeconds: o.ttl,
    metadata: input.metadata,
  };
}

/**
 * provider_a names its tiers `standard` and `high` (HD); the others `low`/`medium`/`high`. The
 * general words are mapped rather than refused, so one client payload works with every provider.
 */
function resolveQuality(provider: ProviderId, quality: string | undefined): Quality {
  const spec = PROVIDER_CATALOGUE[provider];
  if (quality === undefined) return spec.defaultQuality;
  const q = quality.toLowerCase();
  if (provider === 'provider_a') {
    if (q === 'high' || q === 'hd') return 'high';
    if (q === 'standard' || q === 'low' || q === 'medium') return 'standard';
  } else {
    if (q === 'standard') return 'medium';
    if (q === 'low' || q === 'medium' || q === 'high') return q;
  }
  throw new DomainError('INVALID_OPTION', `Quality '${quality}' is not supported by ${provider}`, {
    provider,
    details: { option: 'quality', quality, supported: spec.qualities },
    fields: [{ field: 'options.quality', message: `must be one of ${spec.qualities.join(', ')}` }],
  });
}
