import { z } from 'zod';
import { DomainError } from '../../domain/errors';
import { contentTypeFor } from '../../domain/tts/audio';
import type { AudioFile } from '../../domain/tts/audio-retrieval';
import { runProgressStream, type ProgressEvent } from '../../transport/progress-stream';
import { quotaHeaders } from '../../transport/client-error';
import { GenerationRequestContract, withOptionsContract } from '../../domain/tts/request';
import { HashExistsSchema, HashLookupSchema, HashRequestSchema } from '../../domain/tts/hashing';
import { AudioFormat, Provider } from '../schemas/common';
import { Answer, defineRoutes, type RestCall, type RouteSpec, errorResponse, routesWith } from '../route';
import { WebhookTargetSchema } from '../../domain/tts/async-generation';
import * as T from '../schemas/tts';

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

/** Long-lived immutable audio: its URL is its content's hash. */
const AUDIO_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** The headers of a stored audio file's answer (whole, ranged or not modified), as name/value pairs. */
export function audioHeaderPairs(file: AudioFile): string[] {
  return [
    'Content-Type',
    contentTypeFor(file.view.format),
    'Cache-Control',
    AUDIO_CACHE_CONTROL,
    'Accept-Ranges',
    'bytes',
    'ETag',
    `"${file.view.blobKey}"`,
    'X-Provider',
    file.view.provider,
    'X-Cached-Tier',
    file.tier,
  ];
}

async function sendAudio({ ctx, services, params, req, res }: RestCall, headOnly: boolean) {
  const file = await services.tts.audio.getAudio(ctx, params.hash, { countAccess: !headOnly });
  const { data, view } = file;
  const etag = `"${view.blobKey}"`;
  const headers = audioHeaderPairs(file);
  for (let i = 0; i < headers.length; i += 2) res.setHeader(headers[i], headers[i + 1]);
  const inm = req.headers['if-none-match'];
  if (inm && inm.split(',').some((t) => t.trim() === etag || t.trim() === `W/${etag}` || t.trim() === '*')) {
    res.status(304).end();
    return;
  }
  if (headOnly) {
    res.set('Content-Length', String(data.length)).status(200).end();
    return;
  }
  const rangeHeader = req.headers.range;
  if (rangeHeader) {
    const ifRange = req.headers['if-range'];
    const rangeApplies = !ifRange || ifRange === etag;
    const ranges = rangeApplies ? req.range(data.length, { combine: true }) : undefined;
    if (ranges === -1) {
      res.set('Content-Range', `bytes */${data.length}`).removeHeader('ETag');
      res.removeHeader('Cache-Control'); // the error is not the immutable audio
      throw new DomainError('RANGE_NOT_SATISFIABLE', `Range '${rangeHeader.slice(0, 100)}' is outside the ${data.length} bytes of this file`, {
        details: { size: data.length },
      });
    }
    // A single satisfiable range gets a 206; malformed or multi-range requests get the whole file (RFC 9110 allows it).
    if (Array.isArray(ranges) && ranges.length === 1 && ranges.type === 'bytes') {
      const { start, end } = ranges[0];
      res.status(206).set({ 'Content-Range': `bytes ${start}-${end}/${data.length}`, 'Content-Length': String(end - start + 1) });
      res.end(data.subarray(start, end + 1));
      return;
    }
  }
  res.status(200).set('Content-Length', String(data.length)).end(data);
}

/**
 * `GET /audio/{hash}/stream`: while this instance makes the audio, every byte so far at once and then
 * each as it is encoded (chunked transfer), to the end; otherwise the stored file, as `/audio/{hash}`.
 */
async function streamAudio(call: RestCall) {
  const { ctx, services, params, res, streams } = call;
  const live = services.tts.audio.liveStream(ctx, params.hash);
  if (!live) return sendAudio(call, false);
  res.status(200).set({
    'Content-Type': contentTypeFor(live.format),
    'Cache-Control': 'no-store', // the stored file, not this stream, is the cacheable form
    'X-Accel-Buffering': 'no',
    'X-Stream': 'live',
  });
  res.flushHeaders();
  let unsubscribe: () => void = () => undefined;
  const unregister = streams.add(() => res.destroy());
  const done = () => {
    unsubscribe();
    unregister();
  };
  // Subscribed in the same turn as the check above: the stream cannot finish in between.
  unsubscribe = live.subscribe({
    data: (bytes) => void res.write(bytes),
    end: () => {
      done();
      res.end();
    },
    // Not a whole file: the connection is cut (no final chunk), so no client takes it for complete.
    error: () => {
      done();
      res.destroy();
    },
  });
  res.on('close', done);
}

async function sendChunk({ ctx, services, params, res }: RestCall) {
  const { data, format } = await services.tts.audio.chunkAudio(ctx, params.hash, params.index);
  res.status(200).set({ 'Content-Type': contentTypeFor(format), 'Content-Length': String(data.length), 'Cache-Control': 'private, max-age=600' }).end(data);
}

/**
 * The caller's character budget beside the request-count headers: `RateLimit-Characters-*`, and the
 * policy listed in `RateLimit-Policy` after the request policy (docs/decisions.md).
 */
function showCharacterBudget({ ctx, services, res }: RestCall) {
  const budget = services.tts.generation.characterBudget(ctx);
  if (!budget || res.headersSent) return;
  const headers = quotaHeaders(budget);
  res.set(headers);
  const policy = res.getHeader('RateLimit-Policy');
  const chars = `${headers['RateLimit-Characters-Limit']};w=60;comment="characters"`;
  res.set('RateLimit-Policy', policy ? `${policy}, ${chars}` : chars);
}

/** SSE: headers go out with the first event, so invalid input still gets a plain JSON 400. */
async function streamProgressive(call: RestCall) {
  const { ctx, services, body, res, streams } = call;
  let open = false;
  let ended = false;
  const write = (e: ProgressEvent) => {
    if (ended || res.writableEnded) return;
    if (!open) {
      open = true;
      showCharacterBudget(call);
      res.status(200).set({
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        // No `Connection` here: Node answers keep-alive, or close when the client asked for it.
        'X-Accel-Buffering': 'no',
      });
      res.flushHeaders();
    }
    res.write(`data: ${JSON.stringify(e)}\n\n`);
  };
  const unregister = streams.add((reason) => {
    write({ type: 'error', message: reason, code: 'SERVICE_UNAVAILABLE' });
    ended = true;
    res.end();
  });
  // The response's close (not the request's, which fires once the body is read) means the client is gone.
  res.on('close', () => unregister());
  try {
    await runProgressStream(services, ctx, body, write, { rethrow: () => !open });
  } finally {
    unregister();
    if (open && !ended) {
      ended = true;
      res.end();
    }
  }
}

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
