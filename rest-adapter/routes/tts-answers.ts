/** How the speech routes answer beyond JSON: audio files and ranges, live audio, chunks, budgets, progress streams. */
import { DomainError } from '../../domain/errors';
import { contentTypeFor } from '../../domain/tts/audio';
import type { AudioFile } from '../../domain/tts/audio-retrieval';
import { runProgressStream, type ProgressEvent } from '../../transport/progress-stream';
import { quotaHeaders } from '../../transport/client-error';
import { Provider } from '../schemas/common';
import { type RestCall } from '../route';

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

export async function sendAudio({ ctx, services, params, req, res }: RestCall, headOnly: boolean) {
  const file = await services.tts.audio.getAudio(ctx, params.hash, { countAccess: !headOnly, malformedIsAbsent: headOnly });
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
export async function streamAudio(call: RestCall) {
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

export async function sendChunk({ ctx, services, params, res }: RestCall) {
  const { data, format } = await services.tts.audio.chunkAudio(ctx, params.hash, params.index);
  res
    .status(200)
    .set({ 'Content-Type': contentTypeFor(format), 'Content-Length': String(data.length), 'Cache-Control': 'private, max-age=600' })
    .end(data);
}

/**
 * The caller's character budget beside the request-count headers: `RateLimit-Characters-*`, and the
 * policy listed in `RateLimit-Policy` after the request policy (docs/decisions.md).
 */
export function showCharacterBudget({ ctx, services, res }: RestCall) {
  const budget = services.tts.generation.characterBudget(ctx);
  if (!budget || res.headersSent) return;
  const headers = quotaHeaders(budget);
  res.set(headers);
  const policy = res.getHeader('RateLimit-Policy');
  const chars = `${headers['RateLimit-Characters-Limit']};w=60;comment="characters"`;
  res.set('RateLimit-Policy', policy ? `${policy}, ${chars}` : chars);
}

/** SSE: headers go out with the first event, so invalid input still gets a plain JSON 400. */
export async function streamProgressive(call: RestCall) {
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
