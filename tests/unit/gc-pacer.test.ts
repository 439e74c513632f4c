import vm from 'node:vm';
import { gcPacer, release } from '../../domain/tts/audio/gc-pacer';

/**
 * domain/tts/audio/gc-pacer.ts: a long generation's dead audio buffers are given back as it goes,
 * not when V8 next decides to collect (tens of MB later).
 */
const MB = 1024 * 1024;
const arrayBufferMb = () => process.memoryUsage().arrayBuffers / MB;
/** V8 sweeps dead ArrayBuffers on a background thread after the collection: how much went within `ms`. */
async function freedWithin(before: number, ms: number): Promise<number> {
  const until = Date.now() + ms;
  while (before - arrayBufferMb() < 60 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  return before - arrayBufferMb();
}

describe('audio memory pacing', () => {
  it('release() frees an old buffer at the next minor collection the pacer starts', async () => {
    const pacer = gcPacer(MB);
    let chunk: Buffer | null = Buffer.alloc(64 * MB, 1);
    pacer.passed(MB); // the first collection makes V8's collector reachable (the flag is set)
    // A full collection: the buffer is in the old generation, where a minor one never frees it, and
    // no incremental marking started by the allocation is under way.
    (vm.runInNewContext('gc') as () => void)();
    const before = arrayBufferMb();
    release(chunk);
    expect(chunk.byteLength).toBe(0); // nothing can read it any more
    chunk = null;
    pacer.passed(MB);
    expect(await freedWithin(before, 2000)).toBeGreaterThan(60);
  });

  it('leaves a view that shares its memory alone (a slice of a pooled Buffer)', () => {
    const whole = Buffer.alloc(1024, 7);
    const part = whole.subarray(100, 200);
    release(part);
    expect(part.byteLength).toBe(100);
    expect(whole[0]).toBe(7);
    const small = Buffer.from('pooled'); // Buffer.from of a short string shares the pool
    release(small);
    expect(small.toString()).toBe('pooled');
  });
});
