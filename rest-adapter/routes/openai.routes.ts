import { z } from 'zod';
import { contentTypeFor } from '../../domain/tts/audio';
import type { AudioFile } from '../../domain/tts/audio-retrieval';
import type { ProgressEvent } from '../../domain/tts/generation-response';
import type { GenerationRequestInput } from '../../domain/tts/request';
import { SPEECH_MODELS, SpeechRequestSchema, speechGenerationRequest } from '../../domain/tts/speech-models';
import { runProgressStream } from '../../transport/progress-stream';
import { defineRoutes, errorResponse, routesWith, type RestCall } from '../route';
import { showCharacterBudget } from './tts-answers';

/**
 * OpenAI-compatible speech (`POST /v1/audio/speech`, `GET /v1/models`): OpenAI's request, answer and
 * error shapes over the same domain generation as `POST /api/v1/generate` — its cache and hash
 * modes, budgets, permissions, statistics and cost. Errors travel in OpenAI's envelope
 * (transport/openai-error.ts), so the openai SDKs raise their own exceptions.
 */
const openai = routesWith({ tag: 'openai', envelope: 'openai', limiter: 'tts' } as const);

const SPEECH_EXAMPLE = { model: 'mock', input: 'Hello from the gateway.', voice: 'mock-voice-1', response_format: 'mp3' };

const ModelList = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({
      id: z.enum(SPEECH_MODELS.map((m) => m.id) as [string, ...string[]]),
      object: z.literal('model'),
      created: z.number().int(),
      owned_by: z.string(),
    }),
  ),
});

/**
 * The headers of a speech answer, as name/value pairs: the audio's media type, its hash (the
 * `/api/v1/audio/{hash}` it is also served at), whether it came from the cache, and its provider.
 * The front's seam sends the same for a cache hit.
 */
export function speechHeaderPairs(file: AudioFile, cached: boolean): string[] {
  return [
    'Content-Type',
    contentTypeFor(file.view.format),
    'X-Audio-Hash',
    file.view.hash,
    'X-Cache',
    cached ? 'HIT' : 'MISS',
    'X-Provider',
    file.view.provider,
  ];
}

function sendWhole(call: RestCall, file: AudioFile, cached: boolean) {
  const { res } = call;
  const headers = speechHeaderPairs(file, cached);
  for (let i = 0; i < headers.length; i += 2) res.setHeader(headers[i], headers[i + 1]);
  res.status(200).set('Content-Length', String(file.data.length)).end(file.data);
}

async function speech(call: RestCall) {
  const { ctx, services, body } = call;
  const { request, stream } = speechGenerationRequest(body);
  if (stream) return streamSpeech(call, request);
  const answer = await services.tts.generation.generate(ctx, request);
  const file = await services.tts.audio.getAudio(ctx, answer.hash, { permission: 'tts:generate' });
  // As for /api/v1/generate: only a generation that was charged shows the character budget.
  if (!answer.cached) showCharacterBudget(call);
  sendWhole(call, file, answer.cached);
}

/**
 * `stream_format: "audio"`: the progressive generation's live stream (the audio as each chunk is
 * encoded, chunked transfer), as `GET /api/v1/audio/{hash}/stream` gives it. Audio that already
 * exists is answered whole, as without `stream_format`. Invalid input or a refusal before the first
 * byte gets a JSON error; a failure after it cuts the connection (no client takes it for complete).
 */
async function streamSpeech(call: RestCall, request: GenerationRequestInput) {
  const { ctx, services, res, streams } = call;
  const hash = services.tts.generation.directHash(ctx, request);
  let open = false;
  let complete: Extract<ProgressEvent, { type: 'complete' }> | undefined;
  let unsubscribe: () => void = () => undefined;
  const unregister = streams.add(() => res.destroy());
  const emit = (e: ProgressEvent) => {
    if (e.type === 'complete') complete = e;
    else if (e.type === 'error' && open) res.destroy();
    if (e.type !== 'started' || open) return;
    const live = services.tts.audio.liveStream(ctx, hash, 'tts:generate');
    if (!live) return;
    open = true;
    showCharacterBudget(call);
    res.status(200).set({
      'Content-Type': contentTypeFor(live.format),
      'X-Audio-Hash': hash,
      'X-Cache': 'MISS',
      'X-Provider': request.options?.provider ?? '',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    // Subscribed in the turn the stream was opened in: it cannot finish before.
    unsubscribe = live.subscribe({
      data: (bytes) => void res.write(bytes),
      end: () => void res.end(),
      error: () => void res.destroy(),
    });
  };
  res.on('close', () => {
    unsubscribe();
    unregister();
  });
  try {
    await runProgressStream(services, ctx, request, emit, { rethrow: () => !open });
  } finally {
    unregister();
  }
  if (open || res.destroyed) return;
  // No live stream: the audio existed (or another request made it meanwhile).
  const done = complete;
  if (!done) return void res.destroy();
  sendWhole(call, await services.tts.audio.getAudio(ctx, done.hash, { permission: 'tts:generate' }), done.cached);
}

export const openAiRoutes = defineRoutes([
  openai({
    method: 'post',
    path: '/v1/audio/speech',
    operationId: 'createSpeech',
    summary:
      "OpenAI-compatible speech: OpenAI's request (`model`, `input`, `voice`, `response_format`, `speed`, `stream_format`), answered with the audio bytes; the same generation, cache, budgets and statistics as POST /api/v1/generate. `X-Audio-Hash` names the audio, `X-Cache` says HIT or MISS",
    permission: 'tts:generate',
    request: { body: SpeechRequestSchema, example: SPEECH_EXAMPLE },
    produces: ['audio/mpeg', 'audio/wav', 'audio/ogg'],
    raw: true,
    responses: {
      200: { description: 'The audio (chunked while it is made with `stream_format: "audio"`)' },
      400: errorResponse('Invalid request: unknown model or voice, a response_format that is not served (opus, aac, flac, pcm), speed out of range, …'),
      429: errorResponse('Rate limit or character budget exceeded'),
      500: errorResponse('Provider not configured'),
      502: errorResponse('Upstream provider error'),
    },
    handle: (call) => speech(call),
  }),
  openai({
    method: 'get',
    path: '/v1/models',
    operationId: 'listModels',
    summary:
      "What `model` accepts, in OpenAI's list shape: the providers, and the vendor models that map onto one (tts-1, tts-1-hd, gpt-4o-mini-tts → provider_a)",
    permission: 'tts:read',
    response: ModelList,
    handle: ({ ctx, services }) => services.tts.catalogue.listModels(ctx),
  }),
]);
