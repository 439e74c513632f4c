import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { DomainError } from '../errors';
import type { BlockEncoder, EncodeQuality, OpenEncoder } from './audio/codec';
import type { AudioFormat } from './audio/types';
import type { WorkerReply, WorkerRequest } from './audio/worker-protocol';

export interface AudioWorkerOptions {
  /** Threads at most; 0 runs synthesis and encoding on the event loop (no workers). */
  size: number;
  /** A thread without work for this long ends (its memory goes back); the next task starts one again. */
  idleMs?: number;
  /** Nice value of the worker threads (Linux: per thread); 19 yields the CPU to everything else. */
  nice?: number;
  /**
   * Threads kept when idle (default 0). Starting a thread and compiling its codecs took 250–400 ms
   * on this machine, all of it in front of a generation's first audio; the gateway keeps one.
   */
  keepWarm?: number;
}

/** Two threads at most: these machines are small, and the event loop needs a core of its own. */
export const defaultAudioWorkerCount = () => Math.min(2, os.availableParallelism());
export const DEFAULT_AUDIO_WORKER_IDLE_MS = 10_000;
export const DEFAULT_AUDIO_WORKER_NICE = 19;
/** Tasks waiting on every running thread before another starts: more than one generation's chunks in flight (8). */
const TASKS_QUEUED_BEFORE_A_NEW_THREAD = 12;

export interface MockSynthesis {
  text: string;
  voice: string;
  speed: number;
  pitch?: number;
  format: AudioFormat;
  quality: EncodeQuality;
}

interface Pending {
  resolve(bytes: Uint8Array | undefined): void;
  reject(err: unknown): void;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
  /** Encoder sessions open on this worker (their state lives there). */
  sessions: number;
  idleTimer?: NodeJS.Timeout;
  /** Ended (crashed, or retired by the pool): nothing more is sent to it. */
  gone: boolean;
}

/** A request that is answered, before the pool gives it its id. */
type Call = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

const asBuffer = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : Buffer.alloc(0));

/** A task's error as the worker reported it (a bug or bad input there, not a crash). */
function errorFromWorker(e: { name: string; message: string }): Error {
  const err = e.name === 'RangeError' ? new RangeError(e.message) : e.name === 'TypeError' ? new TypeError(e.message) : new Error(e.message);
  if (err.name !== e.name) err.name = e.name;
  return err;
}

/**
 * A small pool of worker threads for the CPU-heavy half of speech generation: mock synthesis (a
 * task) and MP3/Ogg encoding (a session: one encoder state on one worker, fed block by block, so
 * the whole audio is never in one message). Threads start on demand, end when idle, and run at a
 * low priority, so a flood of long texts slows the floods, not the answers of the event loop.
 * A worker that dies fails its tasks and sessions with 503 SERVICE_UNAVAILABLE; the next task
 * starts a new one.
 */
export class AudioWorkerPool {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private nextSession = 1;
  private closed = false;
  /** Work items the workers have finished, counted by the workers themselves (shared memory). */
  readonly completed = new Int32Array(new SharedArrayBuffer(4));
  private readonly idleMs: number;
  private readonly nice: number;

  constructor(private readonly opts: AudioWorkerOptions) {
    if (!Number.isInteger(opts.size) || opts.size < 1) throw new RangeError('an audio worker pool needs at least one thread');
    this.idleMs = opts.idleMs ?? DEFAULT_AUDIO_WORKER_IDLE_MS;
    this.nice = opts.nice ?? DEFAULT_AUDIO_WORKER_NICE;
  }

  /** Threads running now. */
  get threads(): number {
    return this.slots.length;
  }

  /** Encoder sessions open now (each an encode under way). */
  get openSessions(): number {
    return this.slots.reduce((n, s) => n + s.sessions, 0);
  }

  /** The running threads, for diagnostics and fault tests. */
  workers(): readonly Worker[] {
    return this.slots.map((s) => s.worker);
  }

  /**
   * Starts the threads kept warm and has each make a moment of MP3 (loading the synthesis tables
   * and the encoder), so the first generation does not wait for them.
   */
  async warm(): Promise<void> {
    const wanted = Math.min(this.opts.keepWarm ?? 0, this.opts.size);
    const starting: Promise<unknown>[] = [];
    for (let i = this.slots.length; i < wanted; i++) {
      starting.push(this.call(this.spawn(), { op: 'synthesize', text: 'Ready.', voice: 'alloy', speed: 1, format: 'mp3', quality: 'standard' }));
    }
    await Promise.all(starting);
  }

  /** Mock speech for one text, encoded in `format`, made on a worker. */
  async synthesize(input: MockSynthesis): Promise<Buffer> {
    return asBuffer(await this.call(this.pick(), { op: 'synthesize', ...input }));
  }

  /** An encoder on one worker (EncodeOptions.encoder): its output is byte for byte the local encoder's. */
  readonly openEncoder: OpenEncoder = async (format, sampleRate, quality) => {
    const slot = this.pickForSession();
    const session = this.nextSession++;
    slot.sessions++;
    let open = true;
    const release = () => {
      if (!open) return;
      open = false;
      slot.sessions--;
      this.idleLater(slot);
    };
    try {
      await this.call(slot, { op: 'open', session, format, sampleRate, quality });
    } catch (err) {
      release();
      throw err;
    }
    const encoder: BlockEncoder = {
      encode: async (block) => {
        // A copy of exactly the block, moved (not copied again) to the worker; the caller keeps its array.
        const samples = block.slice();
        return (await this.call(slot, { op: 'encode', session, samples }, [samples.buffer as ArrayBuffer])) ?? new Uint8Array(0);
      },
      finalize: async () => {
        try {
          return (await this.call(slot, { op: 'finish', session })) ?? new Uint8Array(0);
        } finally {
          release();
        }
      },
      abandon: () => {
        if (!open) return;
        if (!slot.gone) slot.worker.postMessage({ op: 'drop', session } satisfies WorkerRequest);
        release();
      },
    };
    return encoder;
  };

  /** Ends every thread; what was under way fails with 503. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.slots].map((slot) => this.retire(slot, 'the server is shutting down')));
  }

  private load(slot: Slot) {
    return slot.pending.size + slot.sessions;
  }

  /**
   * Where an encoder session goes: a thread without one, started if need be while the pool is not
   * full; else the thread with the fewest. A session is a whole generation's encode, so generations
   * under way side by side get threads of their own.
   */
  private pickForSession(): Slot {
    if (this.closed) throw this.unavailable('the server is shutting down');
    let fewest: Slot | undefined;
    for (const slot of this.slots)
      if (!fewest || slot.sessions < fewest.sessions || (slot.sessions === fewest.sessions && this.load(slot) < this.load(fewest))) fewest = slot;
    if (fewest && (fewest.sessions === 0 || this.slots.length >= this.opts.size)) return fewest;
    return this.spawn();
  }

  /**
   * Where a task (one chunk's synthesis, a few ms) goes: the least busy running thread. A thread is
   * started for tasks only when every running one has a queue deeper than a generation's chunks in
   * flight: a thread costs about 28 MB, and a generation's chunks interleave well with its own
   * encode (measured: one 100,000-character generation peaked 24 MB above idle on one thread, 52 MB
   * when its chunks started a second).
   */
  private pick(): Slot {
    if (this.closed) throw this.unavailable('the server is shutting down');
    let least: Slot | undefined;
    for (const slot of this.slots) if (!least || this.load(slot) < this.load(least)) least = slot;
    if (least && (least.pending.size < TASKS_QUEUED_BEFORE_A_NEW_THREAD || this.slots.length >= this.opts.size)) return least;
    return this.spawn();
  }

  private spawn(): Slot {
    const ext = path.extname(__filename);
    const entry = path.join(__dirname, 'audio', `worker${ext}`);
    // From the sources (tests), the worker's TypeScript is transpiled as it is required.
    const script = ext === '.ts' ? path.join(__dirname, '..', 'util', 'worker-from-sources.cjs') : entry;
    const worker = new Worker(script, { workerData: { entry, nice: this.nice, progress: this.completed.buffer } });
    // A thread neither keeps the process alive nor outlives it; the server's sockets do that.
    worker.unref();
    const slot: Slot = { worker, pending: new Map(), sessions: 0, gone: false };
    worker.on('message', (reply: WorkerReply) => {
      const waiting = slot.pending.get(reply.id);
      if (!waiting) return;
      slot.pending.delete(reply.id);
      if (reply.ok) waiting.resolve(reply.bytes);
      else waiting.reject(errorFromWorker(reply.error));
      this.idleLater(slot);
    });
    worker.on('error', (err) => this.lose(slot, err));
    worker.on('exit', (code) => this.lose(slot, new Error(`audio worker exited with code ${code}`)));
    this.slots.push(slot);
    return slot;
  }

  private call(slot: Slot, req: Call, transfer: ArrayBuffer[] = []): Promise<Uint8Array | undefined> {
    if (slot.gone) return Promise.reject(this.unavailable('an audio worker stopped'));
    clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ ...req, id }, transfer);
    });
  }

  private idleLater(slot: Slot) {
    if (slot.gone || this.load(slot) > 0 || slot.idleTimer) return;
    slot.idleTimer = setTimeout(() => {
      slot.idleTimer = undefined;
      // Checked when the time comes: two threads idle together must not both go below the warm count.
      if (this.slots.length > (this.opts.keepWarm ?? 0)) void this.retire(slot, 'idle');
    }, this.idleMs);
    slot.idleTimer.unref();
  }

  /** The pool ends a thread: out of the pool first, so nothing new is sent to it. */
  private async retire(slot: Slot, reason: string) {
    if (slot.gone) return;
    this.forget(slot, this.unavailable(reason));
    await slot.worker.terminate();
  }

  /** A thread ended that the pool did not end: a crash (uncaught error, out of memory, killed). */
  private lose(slot: Slot, cause: unknown) {
    if (slot.gone) return;
    this.forget(slot, this.unavailable('an audio worker stopped', cause));
  }

  private forget(slot: Slot, err: DomainError) {
    slot.gone = true;
    clearTimeout(slot.idleTimer);
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    const waiting = [...slot.pending.values()];
    slot.pending.clear();
    for (const p of waiting) p.reject(err);
  }

  private unavailable(reason: string, cause?: unknown) {
    return new DomainError('SERVICE_UNAVAILABLE', `Audio generation was interrupted (${reason}); retry shortly`, {
      retryAfterSeconds: 1,
      details: { reason: 'audio-worker-stopped' },
      cause,
    });
  }
}
