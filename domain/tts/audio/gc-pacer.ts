import { isArrayBuffer } from 'node:util/types';
import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * Collects the garbage of audio work as it is made, so a long generation's memory is its working
 * set, not its working set plus everything V8 has not yet freed.
 *
 * A chunk of speech passes through several large ArrayBuffers (synthesised samples, its WAV, the
 * decoded samples, encoder blocks), each dead a moment later. V8 frees a dead ArrayBuffer only when
 * a collection finds it, and it starts a collection for ArrayBuffers only once young ones add up to
 * twice the semi-space (32 MB here) or external memory has grown by 64 MB: each thread that handles
 * audio held up to that much dead audio (measured: a 100,000-character generation peaked 60 MB
 * higher with the look-ahead it has now). A minor collection every few MB of audio frees those
 * buffers while they are still young, for well under a millisecond each; it does not touch the old
 * generation, so it costs nothing like a full collection.
 */
export interface GcPacer {
  /** Counts `bytes` of short-lived audio buffers; collects when enough have passed since the last. */
  passed(bytes: number): void;
}

/** Bytes of audio buffers between two minor collections (about one 400-character chunk's worth). */
export const GC_PACE_BYTES = 4 * 1024 * 1024;

type Collect = (options?: { type?: 'minor' | 'major'; execution?: 'sync' | 'async' }) => void;

let collect: Collect | null | undefined;

/**
 * V8's collection function, without starting node with --expose-gc: the flag is set at run time and
 * the function read from a fresh context (the way jest's leak detector gets it). Null where that is
 * refused, and pacing is then off: V8 collects on its own, only later.
 */
function collector(): Collect | null {
  if (collect !== undefined) return collect;
  try {
    const exposed = (globalThis as { gc?: Collect }).gc;
    if (typeof exposed === 'function') return (collect = exposed);
    v8.setFlagsFromString('--expose-gc');
    const fn = vm.runInNewContext('gc') as unknown;
    collect = typeof fn === 'function' ? (fn as Collect) : null;
  } catch {
    collect = null;
  }
  return collect;
}

/**
 * Gives a dead buffer's memory back at the next minor collection, even when the buffer has lived
 * long enough to be in the old generation (a chunk that waited for the encoder), which only a full
 * collection would otherwise free: its memory moves to a new, young ArrayBuffer that is dropped at
 * once. Only for a view that is the whole of its ArrayBuffer (never a slice of a pooled Buffer), and
 * only when nothing reads the buffer again: every view of it is emptied.
 */
export function release(view: ArrayBufferView): void {
  const buffer = view.buffer;
  if (!isArrayBuffer(buffer) || view.byteOffset !== 0 || view.byteLength !== buffer.byteLength || buffer.byteLength === 0) return;
  structuredClone(buffer, { transfer: [buffer as ArrayBuffer] });
}

export function gcPacer(paceBytes = GC_PACE_BYTES): GcPacer {
  let since = 0;
  return {
    passed(bytes) {
      since += bytes;
      if (since < paceBytes) return;
      since = 0;
      collector()?.({ type: 'minor' });
    },
  };
}
