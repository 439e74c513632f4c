import { z } from 'zod';
import { DomainError } from '../../domain/errors';
import { contentTypeFor } from '../../domain/tts/audio';
import type { ProgressEvent } from '../../domain/tts/tts.service';
import { GenerationRequestSchema, TtsOptionsSchema } from '../../domain/tts/request';
import { defineRoutes, type RestCall } from '../route';

const V1 = '/api/v1';
const hashMode = z.enum(['direct', 'content', 'semantic']);
const HashBody = z.object({ text: z.string(), options: TtsOptionsSchema.optional() });
const err = (description: string) => ({ description });
const providerQuery = z.object({ provider: z.enum(['provider_a', 'provider_b', 'provider_c', 'mock']).optional() });

/** Long-lived immutable audio: its URL is its content's hash. */
const AUDIO_CACHE_CONTROL = 'public, max-age=31536000, immutable';

async function sendAudio({ ctx, services, params, req, res }: RestCall, headOnly: boolean) {
  const file = await services.tts.getAudio(ctx, params.hash, { countAccess: !headOnly });
  const { data, view } = file;
  const etag = `"${view.blobKey}"`;
  res.set({
    'Content-Type': contentTypeFor(view.format),
    'Cache-Control': AUDIO_CACHE_CONTROL,
    'Accept-Ranges': 'bytes',
    ETag: etag,
    'X-Provider': view.provider,
    'X-Cached-Tier': file.tier,
  });
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
      res.set('Content-Range', `bytes */${data.length}`);
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
 * The caller's character budget beside the request-count headers: `RateLimit-Characters-*`, and the
 * policy listed in `RateLimit-Policy` after the request policy (docs/decisions.md).
 */
function showCharacterBudget({ ctx, services, res }: RestCall) {
  const headers = services.tts.characterBudgetHeaders(ctx);
  if (!headers || res.headersSent) return;
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
        Connection: 'keep-alive',
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
    await services.tts.generateProgressive(ctx, body, write);
  } catch (e) {
    if (!open) throw e;
    const message = e instanceof DomainError ? e.message : 'Generation failed';
    write({ type: 'error', message, code: e instanceof DomainError ? e.code : 'INTERNAL_ERROR' });
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
    summary: 'Convert text to speech (answered from the cache when the same audio exists)',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:generate',
    request: { body: GenerationRequestSchema },
    responses: { 400: err('Invalid request'), 429: err('Rate limit exceeded'), 500: err('Provider not configured'), 502: err('Upstream provider error') },
    answerFromMemory: ({ ctx, services, body, bodyText }) => services.tts.cachedGeneration(ctx, body, bodyText),
    handle: async (call) => {
      const answer = await call.services.tts.generate(call.ctx, call.body);
      // Only a generation that was charged shows the budget: a cache hit costs nothing, and is
      // answered the same whether the fast lane or express serves it.
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
    request: { body: GenerationRequestSchema },
    responses: { 200: { description: 'SSE stream', contentType: 'text/event-stream' }, 400: err('Invalid request') },
    raw: true,
    handle: (call) => streamProgressive(call),
  },
  {
    method: 'head',
    path: `${V1}/audio/{hash}`,
    operationId: 'audioExists',
    summary: 'Whether audio exists (200 with Content-Length) or not (404); no body',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:read',
    raw: true,
    responses: { 404: err('No such audio') },
    handle: (call) => sendAudio(call, true),
  },
  {
    method: 'get',
    path: `${V1}/audio/{hash}`,
    operationId: 'getAudio',
    summary: 'The audio file; supports ETag/If-None-Match and byte ranges',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:read',
    raw: true,
    responses: {
      200: { description: 'Audio bytes', contentType: 'audio/mpeg' },
      206: { description: 'Partial content', contentType: 'audio/mpeg' },
      304: err('Not modified'),
      404: err('No such audio'),
      416: err('Range not satisfiable'),
    },
    handle: (call) => sendAudio(call, false),
  },
  {
    method: 'get',
    path: `${V1}/audio/{hash}/metadata`,
    operationId: 'getAudioMetadata',
    summary: 'Metadata of one audio file (full form, with access statistics)',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:read',
    responses: { 404: err('No such audio') },
    handle: ({ ctx, services, params }) => services.tts.getMetadata(ctx, params.hash),
  },
  {
    method: 'post',
    path: `${V1}/estimate`,
    operationId: 'estimateCost',
    summary: 'Estimate the cost of a generation without generating',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:generate',
    request: { body: GenerationRequestSchema },
    handle: ({ ctx, services, body }) => services.tts.estimate(ctx, body),
  },
  {
    method: 'get',
    path: `${V1}/providers`,
    operationId: 'listProviders',
    summary: 'Providers with their voices and languages',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:read',
    handle: ({ ctx, services }) => services.tts.listProviders(ctx),
  },
  {
    method: 'get',
    path: `${V1}/voices`,
    operationId: 'listVoices',
    summary: 'Voices, of every provider or of the one named',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:read',
    request: { query: providerQuery },
    handle: ({ ctx, services, query }) => services.tts.listVoices(ctx, query.provider),
  },
  {
    method: 'post',
    path: `${V1}/hash-info`,
    operationId: 'hashInfo',
    summary: 'The direct, content and semantic hashes of a text and its options',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:generate',
    request: { body: HashBody },
    handle: ({ ctx, services, body }) => services.tts.hashInfo(ctx, body),
  },
  {
    method: 'post',
    path: `${V1}/hash-lookup`,
    operationId: 'hashLookup',
    summary: 'Find cached audio by hash mode, optionally falling back to the other modes',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:generate',
    request: { body: HashBody.extend({ hashMode, allowFallback: z.boolean().optional() }) },
    handle: ({ ctx, services, body }) => services.tts.hashLookup(ctx, body),
  },
  {
    method: 'post',
    path: `${V1}/hash-exists`,
    operationId: 'hashExists',
    summary: 'Whether audio exists under a hash mode',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:generate',
    request: { body: HashBody.extend({ hashMode }) },
    handle: ({ ctx, services, body }) => services.tts.hashExists(ctx, body),
  },
  {
    method: 'delete',
    path: `${V1}/cache/{hash}`,
    operationId: 'deleteCacheEntry',
    summary: 'Delete one cached audio entry (admin)',
    tag: 'tts-admin',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:admin',
    responses: { 401: err('Missing or unknown key'), 403: err('Key lacks tts:admin') },
    handle: ({ ctx, services, params }) => services.tts.deleteCacheEntry(ctx, params.hash),
  },
  {
    method: 'get',
    path: `${V1}/cache/stats`,
    operationId: 'cacheStats',
    summary: 'Cache statistics (admin)',
    tag: 'tts-admin',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:admin',
    responses: { 401: err('Missing or unknown key'), 403: err('Key lacks tts:admin') },
    handle: ({ ctx, services }) => services.tts.cacheStats(ctx),
  },
  {
    method: 'delete',
    path: `${V1}/cache`,
    operationId: 'clearCache',
    summary: 'Clear all cached audio (admin)',
    tag: 'tts-admin',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:admin',
    responses: { 401: err('Missing or unknown key'), 403: err('Key lacks tts:admin') },
    handle: ({ ctx, services }) => services.tts.clearCache(ctx),
  },
  {
    method: 'get',
    path: `${V1}/health`,
    operationId: 'health',
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
    summary: 'Languages, of every provider or of the one named',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:read',
    request: { query: providerQuery },
    handle: ({ ctx, services, query }) => services.tts.listLanguages(ctx, query.provider),
  },
  {
    method: 'get',
    path: `${V1}/stats/providers`,
    operationId: 'providerStats',
    summary: 'Per-provider counters (requests, characters, cost, average latency in ms, errors)',
    tag: 'tts',
    envelope: 'tts',
    limiter: 'tts',
    permission: 'tts:read',
    handle: ({ ctx, services }) => services.tts.providerStats(ctx),
  },
  {
    method: 'get',
    path: `${V1}/health/ready`,
    operationId: 'ready',
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
    summary: 'Liveness',
    tag: 'health',
    envelope: 'tts',
    limiter: 'tts',
    handle: ({ services }) => services.health.live(),
  },
]);
