import fs from 'node:fs';
import { concatPcmBlocks, encodeBlocks, synthesizeSpeechLike, type Pcm } from '../../domain/tts/audio';
import { AudioWorkerPool } from '../../domain/tts/audio-workers';
import { DomainError } from '../../domain/errors';
import { MockProvider } from '../../domain/tts/providers/mock';

const SAMPLE_RATE = 24000;
const speech = (text: string): Pcm => synthesizeSpeechLike({ text, voice: 'alloy', speed: 1 });
/** About a minute and a half of speech: dozens of encoder blocks. */
const LONG_TEXT = Array.from({ length: 30 }, (_, i) => `Sentence number ${i} of a long text for the encoder.`).join(' ');

describe('audio worker pool', () => {
  let pool: AudioWorkerPool;
  beforeEach(() => {
    pool = new AudioWorkerPool({ size: 2, idleMs: 60_000 });
  });
  afterEach(() => pool.close());

  it.each(['mp3', 'ogg'] as const)('encodes %s block by block on a worker to the same bytes as in this thread', async (format) => {
    const parts = [speech(LONG_TEXT), speech('And a second part, after the seam.')];
    const here = await encodeBlocks(concatPcmBlocks(parts.map((p) => async () => p)), SAMPLE_RATE, format, { quality: 'standard' });
    const there = await encodeBlocks(concatPcmBlocks(parts.map((p) => async () => p)), SAMPLE_RATE, format, { quality: 'standard', encoder: pool.openEncoder });
    expect(there.data.length).toBeGreaterThan(10_000);
    expect(there.data.equals(here.data)).toBe(true);
    expect(there).toMatchObject({ bitrate: here.bitrate, sampleRate: here.sampleRate, durationSeconds: here.durationSeconds });
  });

  it.each(['mp3', 'ogg', 'wav'] as const)('synthesises mock %s on a worker to the same bytes as in this thread', async (format) => {
    const req = { text: 'The mock provider, off the event loop.', voice: 'nova', speed: 1.25, quality: 'high' as const, language: 'en', format };
    const here = await new MockProvider(0).synthesize(req);
    const there = await new MockProvider(0, pool).synthesize(req);
    expect(there.equals(here)).toBe(true);
  });

  it('encodes while this thread is blocked (the work is not on the event loop)', async () => {
    const encoder = await pool.openEncoder('mp3', SAMPLE_RATE, 'standard');
    const block = speech(LONG_TEXT).samples.subarray(0, 64 * 1024);
    const before = Atomics.load(pool.completed, 0);
    const encoded = encoder.encode(block);
    // This thread now waits without returning to its event loop: only another thread can finish the
    // block. With the encoder on this thread, the count could not move and the wait would time out.
    const waited = Atomics.wait(pool.completed, 0, before, 60_000);
    expect(waited).toBe('ok');
    expect((await encoded).length).toBeGreaterThan(0);
    encoder.abandon();
  });

  it('runs its threads at the configured nice value, leaving this thread as it was', async () => {
    if (process.platform !== 'linux') return; // per-thread nice values are a Linux property
    const niceOf = (stat: string) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    const threadNices = () => new Map(fs.readdirSync('/proc/self/task').map((tid) => [tid, niceOf(fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8'))]));
    const mainBefore = niceOf(fs.readFileSync('/proc/self/stat', 'utf8'));
    const before = threadNices();
    await pool.synthesize({ text: 'Wake a thread.', voice: 'alloy', speed: 1, format: 'wav', quality: 'standard' });
    const added = [...threadNices()].filter(([tid]) => !before.has(tid));
    expect(added.some(([, nice]) => nice === 19)).toBe(true);
    expect(niceOf(fs.readFileSync('/proc/self/stat', 'utf8'))).toBe(mainBefore);
  });

  it('fails what a crashed worker was doing with SERVICE_UNAVAILABLE, and starts a new one for the next task', async () => {
    const encoder = await pool.openEncoder('ogg', SAMPLE_RATE, 'standard');
    expect(pool.threads).toBe(1);
    await pool.workers()[0].terminate(); // not the pool's doing: as a crash
    const block = speech('After the crash.').samples;
    await expect(Promise.resolve().then(() => encoder.encode(block))).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 1 });
    await expect(Promise.resolve().then(() => encoder.finalize())).rejects.toBeInstanceOf(DomainError);
    expect(pool.threads).toBe(0);
    const again = await pool.synthesize({ text: 'A new thread.', voice: 'alloy', speed: 1, format: 'mp3', quality: 'standard' });
    expect(again.length).toBeGreaterThan(0);
    expect(pool.threads).toBe(1);
  });

  it('ends idle threads', async () => {
    const quick = new AudioWorkerPool({ size: 2, idleMs: 100 });
    try {
      await quick.synthesize({ text: 'Then idle.', voice: 'alloy', speed: 1, format: 'wav', quality: 'standard' });
      expect(quick.threads).toBe(1);
      const exited = new Promise((resolve) => quick.workers()[0].once('exit', resolve));
      await exited;
      expect(quick.threads).toBe(0);
    } finally {
      await quick.close();
    }
  });
});

describe('which thread takes the work', () => {
  it("a generation's chunks are synthesised on the thread that encodes it: short tasks start no second thread while one is running", async () => {
    const shared = new AudioWorkerPool({ size: 2, idleMs: 60_000, keepWarm: 1, nice: 0 });
    try {
      await shared.warm();
      const session = await shared.openEncoder('mp3', 24000, 'standard');
      const chunks = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          shared.synthesize({ text: `Chunk ${i} of a long text.`, voice: 'alloy', speed: 1, format: 'wav', quality: 'standard' }),
        ),
      );
      expect(chunks.every((wav) => wav.subarray(0, 4).toString('latin1') === 'RIFF')).toBe(true);
      expect(shared.threads).toBe(1);
      expect((await session.finalize()).length).toBeGreaterThan(0);
      // A queue deeper than one generation's chunks in flight is worth a second thread.
      const flood = Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          shared.synthesize({ text: `Another text, number ${i}.`, voice: 'alloy', speed: 1, format: 'wav', quality: 'standard' }),
        ),
      );
      expect(shared.threads).toBe(2);
      await flood;
    } finally {
      await shared.close();
    }
  });
});

describe('threads kept warm', () => {
  it('warm() starts the kept threads before any work, and idleness never takes the pool below them', async () => {
    const warmPool = new AudioWorkerPool({ size: 2, idleMs: 100, keepWarm: 1 });
    try {
      expect(warmPool.threads).toBe(0);
      await warmPool.warm();
      expect(warmPool.threads).toBe(1);
      // Two generations at once (two encoder sessions) take both threads, the second started for
      // them; once idle, only the one above the warm count ends.
      const sessions = await Promise.all([warmPool.openEncoder('mp3', 24000, 'standard'), warmPool.openEncoder('mp3', 24000, 'standard')]);
      expect(warmPool.threads).toBe(2);
      await Promise.all(sessions.map((s) => s.finalize()));
      const until = Date.now() + 10_000;
      while (warmPool.threads > 1 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 400));
      expect(warmPool.threads).toBe(1);
    } finally {
      await warmPool.close();
    }
  });
});
