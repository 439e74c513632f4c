// OpenAI's speech request (`model`, `input`, `voice`, …) read as the gateway's generation request: which provider a model names, which formats are served.
import { z } from 'zod';
import { DomainError } from '../errors';
import { parseInput } from '../validation';
import { AUDIO_FORMATS, PROVIDER_IDS, type AudioFormat, type ProviderId, type Quality } from './catalogue';
import type { GenerationRequestInput } from './request';

export interface SpeechModel {
  id: string;
  provider: ProviderId;
  /** The provider's quality the model stands for (its default when absent). */
  quality?: Quality;
  /** OpenAI's tts-1 models take no `instructions` (the provider's own rule applies otherwise). */
  noInstructions?: boolean;
}

/**
 * What `model` accepts: each provider by its own name, and the vendor models of provider_a's
 * OpenAI-style API by theirs (`tts-1` its standard tier, `tts-1-hd` its HD tier).
 */
export const SPEECH_MODELS: readonly SpeechModel[] = [
  ...PROVIDER_IDS.map((provider) => ({ id: provider, provider })),
  { id: 'tts-1', provider: 'provider_a', quality: 'standard', noInstructions: true },
  { id: 'tts-1-hd', provider: 'provider_a', quality: 'high', noInstructions: true },
  { id: 'gpt-4o-mini-tts', provider: 'provider_a', quality: 'standard' },
];
const MODELS = new Map(SPEECH_MODELS.map((m) => [m.id, m]));

/** `created` of every listed model (Unix seconds): fixed, so the list is the same on every instance and day. */
export const SPEECH_MODELS_CREATED = 1767225600;

/** `response_format` values served: every format the gateway encodes (OpenAI's `opus`, `aac`, `flac` and `pcm` are not among them). */
export const SPEECH_FORMATS: readonly AudioFormat[] = AUDIO_FORMATS;
/** `stream_format`: `audio` streams the audio as it is made; OpenAI's `sse` (base64 events) is not offered. */
export const SPEECH_STREAM_FORMATS = ['audio'] as const;

const finite = z.number().refine(Number.isFinite, 'must be a finite number');

export const SpeechRequestSchema = z
  .object({
    model: z
      .string({ error: 'model is required and must be a string' })
      .max(100)
      .describe(
        'A provider (`mock`, `provider_a`, …) or a vendor model that maps onto one (`tts-1`, `tts-1-hd`, `gpt-4o-mini-tts` → provider_a); see GET /v1/models',
      ),
    input: z.string({ error: 'input is required and must be a string' }).describe('The text to speak'),
    voice: z
      .string({ error: 'voice is required and must be a string' })
      .max(100)
      .describe("One of the model's provider's voices (GET /api/v1/voices?provider=…)"),
    response_format: z.string().max(20).optional().describe('mp3 (default), wav or ogg'),
    speed: finite.optional().describe("Within the provider's range (1 when absent)"),
    instructions: z
      .string()
      .max(4096)
      .optional()
      .describe('How to speak: taken by `gpt-4o-mini-tts` and `provider_a` (sent to provider_a with its gpt-4o-mini-tts model); refused by the other models'),
    stream_format: z.string().max(20).optional().describe('`audio`: the audio is streamed (chunked) as it is made'),
  })
  .strict();
export type SpeechRequest = z.input<typeof SpeechRequestSchema>;

const invalid = (code: 'INVALID_PROVIDER' | 'INVALID_FORMAT' | 'INVALID_OPTION', field: string, message: string, details: Record<string, unknown>) =>
  new DomainError(code, message, { details, fields: [{ field, message }] });

/**
 * The generation request an OpenAI speech request stands for, and whether it asks for a stream.
 * Throws, in OpenAI's field names, what the request's own fields get wrong; the provider's rules
 * (voice, speed, text) are then checked by the generation as for any request.
 */
export function speechGenerationRequest(raw: unknown): { request: GenerationRequestInput; stream: boolean; model: SpeechModel } {
  const body = parseInput(SpeechRequestSchema, raw);
  const model = MODELS.get(body.model);
  if (!model) {
    throw invalid('INVALID_PROVIDER', 'model', `Model '${body.model}' does not exist; one of ${[...MODELS.keys()].join(', ')}`, {
      model: body.model,
      supportedModels: [...MODELS.keys()],
    });
  }
  const format = body.response_format?.toLowerCase() ?? 'mp3';
  if (!(SPEECH_FORMATS as readonly string[]).includes(format)) {
    throw invalid('INVALID_FORMAT', 'response_format', `response_format '${body.response_format}' is not served; one of ${SPEECH_FORMATS.join(', ')}`, {
      format: body.response_format,
      supportedFormats: SPEECH_FORMATS,
    });
  }
  if (body.stream_format !== undefined && !(SPEECH_STREAM_FORMATS as readonly string[]).includes(body.stream_format)) {
    throw new DomainError('VALIDATION_ERROR', `stream_format '${body.stream_format}' is not offered; use 'audio' or leave it out`, {
      fields: [{ field: 'stream_format', message: `must be one of ${SPEECH_STREAM_FORMATS.join(', ')}` }],
    });
  }
  if (body.instructions !== undefined && model.noInstructions) {
    throw invalid('INVALID_OPTION', 'instructions', `Model '${model.id}' takes no instructions; use gpt-4o-mini-tts`, {
      option: 'instructions',
      model: model.id,
    });
  }
  const request: GenerationRequestInput = {
    text: body.input,
    options: {
      provider: model.provider,
      voice: body.voice,
      format,
      ...(body.speed !== undefined ? { speed: body.speed } : {}),
      ...(model.quality ? { quality: model.quality } : {}),
      ...(body.instructions !== undefined ? { instructions: body.instructions } : {}),
    },
  };
  return { request, stream: body.stream_format === 'audio', model };
}

/** OpenAI's model list: every name `model` accepts, owned by the provider it maps onto. */
export function speechModelList() {
  return {
    object: 'list' as const,
    data: SPEECH_MODELS.map((m) => ({ id: m.id, object: 'model' as const, created: SPEECH_MODELS_CREATED, owned_by: m.provider })),
  };
}
