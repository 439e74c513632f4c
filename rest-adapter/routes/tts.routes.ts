import { z } from 'zod';
import type { AudioFile } from '../../domain/tts/audio-retrieval';
import { GenerationRequestContract, withOptionsContract } from '../../domain/tts/request';
import { HashExistsSchema, HashLookupSchema, HashRequestSchema } from '../../domain/tts/hashing';
import { AudioFormat, Provider } from '../schemas/common';
import { Answer, defineRoutes, type RouteSpec, errorResponse, routesWith } from '../route';
import { WebhookTargetSchema } from '../../domain/tts/async-generation';
import * as T from '../schemas/tts';
import { sendAudio, streamAudio, sendChunk, showCharacterBudget, streamProgressive } from './tts-answers';

const V1 = '/api/v1';

/** What every audio-reading path shares: the TTS envelope and limiter, `tts:read`, raw audio bodies. */
const AUDIO_READ = {
  tag: 'tts',
  envelope: 'tts',
  limiter: 'tts',
  permission: 'tts:read',
  raw: true,
  produces: ['audio/mpeg', 'audio/wav', 'audio/ogg'],
} satisfies Partial<RouteSpec>;

/** The audio cache's administration: `tts:admin` only. */
const ttsAdmin = routesWith({
  tag: 'tts-admin',
  envelope: 'tts',
  limiter: 'tts',
  permission: 'tts:admin',
  responses: { 401: errorResponse('Missing or unknown key'), 403: errorResponse('Key lacks tts:admin') },
} as const);

const withOptions = withOptionsContract;
const GenerationBody = GenerationRequestContract.extend({
  webhook: WebhookTargetSchema.optional().describe(
    'Asynchronous generation: answered 202 at once; the outcome is POSTed to `url` (with `headers`, signed with `secret` or a secret the answer shows) — see the `speechGenerationFinished` webhook',
  ),
});
const hasWebhook = (body: unknown) => !!body && typeof body === 'object' && (body as Record<string, unknown>).webhook !== undefined;
const GENERATE_EXAMPLE = { text: 'Hello from the gateway.', options: { provider: 'mock', voice: 'mock-voice-1', format: 'mp3', speed: 1 } };
const providerQuery = z.object({ provider: Provider.optional() });

export const ttsRoutes = defineRoutes([
  {
    method: 'post',
    path: `${V1}/generate`,
    operationId: 'generateSpeech',
    response: T.GenerationResult,
    summary: 'Convert text to speech (answered from the cache when the same audio exists)',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:generate',
    request: { body: GenerationBody, example: GENERATE_EXAMPLE },
    responses: {
      202: { description: 'Queued (the request has `webhook`): the outcome goes to the webhook; `statusUrl` tells the status', schema: T.QueuedGeneration },
      400: errorResponse('Invalid request (also a webhook URL that is not public: SSRF guard)'),
      429: errorResponse('Rate limit exceeded'),
      500: errorResponse('Provider not configured'),
      502: errorResponse('Upstream provider error'),
    },
    handle: async (call) => {
      if (hasWebhook(call.body)) {
        const queued = await call.services.speechGenerations.submit(call.ctx, call.body);
        showCharacterBudget(call);
        return new Answer(202, queued);
      }
      const answer = await call.services.tts.generation.generate(call.ctx, call.body);
      // Only a generation that was charged shows the budget: a cache hit costs nothing, and is
      // answered the same whichever way it is served.
      if (!answer.cached) showCharacterBudget(call);
      return answer;
    },
  },
  {
    method: 'post',
    path: `${V1}/generate-progressive`,
    operationId: 'generateSpeechProgressive',
    summary: 'Generate long text progressively, streamed as Server-Sent Events (started, progress, complete, error)',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:generate',
    request: { body: GenerationBody, example: GENERATE_EXAMPLE },
    responses: { 200: { description: 'SSE stream of `started`, `progress`, `complete` and `error` events' }, 400: errorResponse('Invalid request') },
    produces: ['text/event-stream'],
    raw: true,
    handle: (call) => streamProgressive(call),
  },
  {
    method: 'get',
    path: `${V1}/generations/{hash}`,
    operationId: 'getGenerationStatus',
    response: T.GenerationStatus,
    summary: 'Status of an asynchronous generation (queued, running, completed, failed) and of its webhook delivery',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:read',
    responses: { 404: errorResponse('No generation of this hash is known') },
    handle: ({ ctx, services, params }) => services.speechGenerations.status(ctx, params.hash),
  },
  {
    method: 'head',
    path: `${V1}/audio/{hash}`,
    operationId: 'audioExists',
    summary: 'Whether audio exists (200 with Content-Length) or not (404); no body',
    ...AUDIO_READ,
    responses: { 200: { description: 'The audio exists: its Content-Type, Content-Length and ETag, no body' }, 404: errorResponse('No such audio (no body)') },
    handle: (call) => sendAudio(call, true),
  },
  {
    method: 'get',
    path: `${V1}/audio/{hash}`,
    operationId: 'getAudio',
    summary: 'The audio file; supports ETag/If-None-Match and byte ranges',
    ...AUDIO_READ,
    responses: {
      200: { description: 'The audio, in the format it was generated in' },
      206: { description: 'The requested byte range (Content-Range)' },
      304: errorResponse('Not modified (If-None-Match matched the ETag)'),
      404: errorResponse('No such audio'),
      416: errorResponse('Range not satisfiable (a JSON error; Content-Range names the size)'),
    },
    handle: (call) => sendAudio(call, false),
  },
  {
    method: 'get',
    path: `${V1}/audio/{hash}/stream`,
    operationId: 'streamAudio',
    summary:
      'The audio as one stream (the `streamUrl` of progressive generation): begins as soon as the first chunk is encoded, continues in order with chunked transfer to the end; joined late, it still starts from the beginning; once complete, the same bytes as /audio/{hash} (WAV: see the decisions)',
    ...AUDIO_READ,
    responses: {
      200: { description: 'The audio, streamed while it is made (no Content-Length), or the stored file' },
      304: errorResponse('Not modified (the stored file; If-None-Match matched)'),
      404: errorResponse('No such audio, and none being made on this instance'),
    },
    handle: (call) => streamAudio(call),
  },
  {
    method: 'get',
    path: `${V1}/audio/{hash}/chunks/{index}`,
    operationId: 'getAudioChunk',
    summary: 'One chunk of a progressive generation (its `chunkAudioUrl`), playable alone; kept while it runs and 10 minutes after',
    ...AUDIO_READ,
    responses: { 200: { description: 'The chunk' }, 404: errorResponse('No such chunk (yet, or any more)') },
    handle: (call) => sendChunk(call),
  },
  {
    method: 'get',
    path: `${V1}/audio/{hash}/metadata`,
    operationId: 'getAudioMetadata',
    response: T.AudioMetadata,
    summary: 'Metadata of one audio file (full form, with access statistics)',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:read',
    responses: { 404: errorResponse('No such audio') },
    handle: ({ ctx, services, params }) => services.tts.audio.getMetadata(ctx, params.hash),
  },
  {
    method: 'post',
    path: `${V1}/estimate`,
    operationId: 'estimateCost',
    response: T.CostEstimate,
    summary: 'Estimate the cost of a generation without generating',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:generate',
    request: { body: GenerationBody, example: GENERATE_EXAMPLE },
    handle: ({ ctx, services, body }) => services.tts.catalogue.estimate(ctx, body),
  },
  {
    method: 'get',
    path: `${V1}/providers`,
    operationId: 'listProviders',
    response: T.ProviderList,
    summary: 'Providers with their voices and languages',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:read',
    handle: ({ ctx, services }) => services.tts.catalogue.listProviders(ctx),
  },
  {
    method: 'get',
    path: `${V1}/voices`,
    operationId: 'listVoices',
    response: T.VoiceList,
    summary: 'Voices, of every provider or of the one named',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:read',
    request: { query: providerQuery },
    handle: ({ ctx, services, query }) => services.tts.catalogue.listVoices(ctx, query.provider),
  },
  {
    method: 'post',
    path: `${V1}/hash-info`,
    operationId: 'hashInfo',
    response: T.HashInfo,
    summary: 'The direct, content and semantic hashes of a text and its options',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:generate',
    request: { body: withOptions(HashRequestSchema), example: { text: 'Hello from the gateway.' } },
    handle: ({ ctx, services, body }) => services.tts.hashes.hashInfo(ctx, body),
  },
  {
    method: 'post',
    path: `${V1}/hash-lookup`,
    operationId: 'hashLookup',
    response: T.HashLookup,
    summary: 'Find cached audio by hash mode, optionally falling back to the other modes',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:generate',
    request: { body: withOptions(HashLookupSchema), example: { text: 'Hello from the gateway.', hashMode: 'content', allowFallback: true } },
    handle: ({ ctx, services, body }) => services.tts.hashes.hashLookup(ctx, body),
  },
  {
    method: 'post',
    path: `${V1}/hash-exists`,
    operationId: 'hashExists',
    response: T.HashExists,
    summary: 'Whether audio exists under a hash mode',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:generate',
    request: { body: withOptions(HashExistsSchema), example: { text: 'Hello from the gateway.', hashMode: 'direct' } },
    handle: ({ ctx, services, body }) => services.tts.hashes.hashExists(ctx, body),
  },
  ttsAdmin({
    method: 'delete',
    path: `${V1}/cache/{hash}`,
    operationId: 'deleteCacheEntry',
    response: T.CacheEntryDeleted,
    summary: 'Delete one cached audio entry (admin)',
    handle: ({ ctx, services, params }) => services.tts.cache.deleteCacheEntry(ctx, params.hash),
  }),
  ttsAdmin({
    method: 'get',
    path: `${V1}/cache/stats`,
    operationId: 'cacheStats',
    response: T.CacheStats,
    summary: 'Cache statistics (admin)',
    handle: ({ ctx, services }) => services.tts.cache.cacheStats(ctx),
  }),
  ttsAdmin({
    method: 'delete',
    path: `${V1}/cache`,
    operationId: 'clearCache',
    response: T.CacheCleared,
    summary: 'Clear all cached audio (admin)',
    handle: ({ ctx, services }) => services.tts.cache.clearCache(ctx),
  }),
  {
    method: 'get',
    path: `${V1}/health`,
    operationId: 'health',
    response: T.Health,
    summary: 'Service health',
    tag: 'health',
    envelope: 'tts',
    limiter: 'tts',
    handle: ({ services }) => services.health.health(),
  },
  {
    method: 'get',
    path: `${V1}/languages`,
    operationId: 'listLanguages',
    response: T.LanguageList,
    summary: 'Languages, of every provider or of the one named',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:read',
    request: { query: providerQuery },
    handle: ({ ctx, services, query }) => services.tts.catalogue.listLanguages(ctx, query.provider),
  },
  {
    method: 'get',
    path: `${V1}/stats/providers`,
    operationId: 'providerStats',
    response: T.ProviderStats,
    summary: 'Per-provider counters (requests, characters, cost, average latency in ms, errors)',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:read',
    handle: ({ ctx, services }) => services.tts.catalogue.providerStats(ctx),
  },
  {
    method: 'get',
    path: `${V1}/health/ready`,
    operationId: 'ready',
    response: T.Ready,
    summary: 'Readiness: 200 when the database answers, 503 otherwise',
    tag: 'health',
    envelope: 'tts',
    limiter: 'tts',
    raw: true,
    handle: async ({ services, res }) => {
      const r = await services.health.ready();
      res.status(r.ready ? 200 : 503).json(r);
    },
  },
  {
    method: 'get',
    path: `${V1}/health/live`,
    operationId: 'live',
    response: T.Live,
    summary: 'Liveness',
    tag: 'health',
    envelope: 'tts',
    limiter: 'tts',
    handle: ({ services }) => services.health.live(),
  },
]);
