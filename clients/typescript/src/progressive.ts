import { createParser } from 'eventsource-parser';
import { errorFor, GatewayError, statusOfCode } from './errors';

/** The events of progressive generation (`POST /api/v1/generate-progressive`, one SSE `data:` each). */
export type ProgressEvent =
  /** `streamUrl`: the audio as one stream that begins at once (GET it while the rest is made). */
  | { type: 'started'; totalChunks: number; streamUrl: string }
  /** `chunkIndex`/`chunkAudioUrl`: the chunk whose audio is ready, playable alone (absent when the audio came from the cache). */
  | { type: 'progress'; completed: number; total: number; progress: number; chunkIndex?: number; chunkAudioUrl?: string }
  | {
      type: 'complete';
      hash: string;
      audioUrl: string;
      duration: number;
      chunks: number;
      parallelTime: number;
      cached: boolean;
      metadata: { provider: string; voice: string; generatedAt: string; fileSize: number };
    };

/**
 * Reads an SSE answer as an async iterator: yields `started`, `progress` and `complete` (then ends);
 * an `error` event is thrown as a GatewayError with the event's code. Leaving the loop early
 * (`break`) closes the stream; the gateway still finishes and caches the audio.
 */
export function readProgressive(response: Promise<Response>, controller: AbortController): AsyncIterableIterator<ProgressEvent> {
  response.catch(() => undefined); // reported by next(), not as an unhandled rejection
  const queue: ProgressEvent[] = [];
  let failure: unknown = null;
  let finished = false;
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  const parser = createParser({
    onEvent(message) {
      if (finished) return;
      let data: { type?: string; code?: unknown; message?: unknown };
      try {
        data = JSON.parse(message.data);
      } catch {
        failure = errorFor('INTERNAL_ERROR', `unreadable event: ${message.data.slice(0, 100)}`, { status: 502 });
        return;
      }
      if (data?.type === 'error') {
        // The answer was a 200 that began streaming; the failure has the status its code has over
        // HTTP (an unknown code: a failure of the gateway, 500).
        const code = String(data.code ?? 'INTERNAL_ERROR');
        failure = errorFor(code, String(data.message ?? 'generation failed'), { status: statusOfCode(code) ?? 500, details: { event: data } });
        return;
      }
      queue.push(data as ProgressEvent);
    },
  });
  const decoder = new TextDecoder();

  const close = async () => {
    finished = true;
    try {
      await reader?.cancel();
    } catch {
      /* already closed */
    }
    controller.abort();
  };

  const iterator: AsyncIterableIterator<ProgressEvent> = {
    async next(): Promise<IteratorResult<ProgressEvent>> {
      for (;;) {
        if (queue.length) {
          const e = queue.shift()!;
          if (e.type === 'complete') {
            queue.length = 0;
            await close();
          }
          return { value: e, done: false };
        }
        if (failure) {
          const f = failure;
          failure = null;
          await close();
          throw f;
        }
        if (finished) return { value: undefined, done: true };
        if (!reader) {
          const res = await response;
          reader = res.body!.getReader();
        }
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (err) {
          if (finished) return { value: undefined, done: true };
          await close();
          throw err instanceof GatewayError ? err : errorFor('SERVICE_UNAVAILABLE', `event stream broken: ${(err as Error).message}`, { status: 503 });
        }
        if (chunk.done) {
          parser.feed(decoder.decode());
          if (!queue.length && !failure) {
            finished = true;
            throw errorFor('SERVICE_UNAVAILABLE', 'event stream ended before the complete event', { status: 503 });
          }
          continue;
        }
        parser.feed(decoder.decode(chunk.value, { stream: true }));
      }
    },
    async return(): Promise<IteratorResult<ProgressEvent>> {
      await close();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
