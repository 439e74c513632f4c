import type { AudioFormat } from './catalogue';
import { mono16WavHeader, WAV_HEADER_BYTES, type EncodeSink } from './audio';
import { readOggPages } from './audio/ogg';

export interface LiveListener {
  data(bytes: Buffer): void;
  /** The stream is complete: every byte has been given. */
  end(): void;
  /** The generation failed: what was given is not a whole file. */
  error(err: unknown): void;
}

export interface ChunkEvent {
  index: number;
}

/** Where a live stream's bytes are kept as they come (the blob being written), instead of memory. */
export interface LiveSpool {
  write(bytes: Buffer): Promise<void>;
  read(from: number, to: number): Promise<Buffer>;
}

/** A late listener is given the stream's start from the spool in pieces of this size. */
const REPLAY_BYTES = 1024 * 1024;

interface CatchingUp {
  listener: LiveListener;
  /** Bytes written while the start is read back, given after it. */
  queue: Buffer[];
  cancelled: boolean;
}

/**
 * The audio of one progressive generation while it is being made: every encoded byte in order (a
 * client that joins late is given all of them from the start, then the rest as it comes), and where
 * each chunk ends, so each chunk can be served on its own. Lives on the instance that makes the
 * audio: in its memory, or with a spool (the file being written) only the bytes not yet written there
 * and the first chunk's; once the file is stored, the file is what is served.
 */
export class LiveAudio implements EncodeSink {
  private parts: Buffer[] = [];
  private size = 0;
  /** With a spool: bytes handed to it and not yet written (one encoder output at a time). */
  private unspooled: Buffer[] = [];
  private spooled = 0;
  private readonly catchingUp = new Set<CatchingUp>();
  private failure: unknown;
  /** With a spool: the stream's start up to the end of chunk 0 (where the Ogg/WAV prefix is read). */
  private head: Buffer[] | null = [];
  private prefix = Buffer.alloc(0);
  /** Byte offset in the stream where chunk i ends. */
  readonly chunkEnds: number[] = [];
  private readonly listeners = new Set<LiveListener>();
  private readonly chunkListeners = new Set<(e: ChunkEvent) => void>();
  state: 'live' | 'done' | 'failed' = 'live';
  /** Bytes at the start of the stream that every chunk needs to play alone (Ogg's header pages). */
  private prefixEnd = 0;
  private sampleRate = 0;
  /** Chunks whose bytes are complete (and announced). */
  private announced = 0;

  constructor(
    readonly hash: string,
    readonly format: AudioFormat,
    readonly totalChunks: number,
  ) {}

  private spool?: LiveSpool;

  /** From now on the bytes are kept in `spool` (the file being written), not in memory; before the first byte. */
  attachSpool(spool: LiveSpool) {
    if (this.size > 0 || this.state !== 'live') throw new Error('a spool is attached before the first byte');
    this.spool = spool;
  }

  /** The spool holds the file: the encoder need not gather it too. */
  get keepsFile(): boolean {
    return !!this.spool;
  }

  write(bytes: Buffer): void | Promise<void> {
    if (this.state !== 'live' || !bytes.length) return;
    this.size += bytes.length;
    for (const l of this.listeners) l.data(bytes);
    for (const c of this.catchingUp) c.queue.push(bytes);
    if (!this.spool) {
      this.parts.push(bytes);
      return;
    }
    this.head?.push(bytes);
    this.unspooled.push(bytes);
    return this.spool.write(bytes).then(() => {
      this.unspooled.shift();
      this.spooled += bytes.length;
    });
  }

  endChunk(index: number) {
    if (this.state !== 'live') return;
    if (index === 0 && !this.chunkEnds.length) this.learnPrefix();
    const known = index < this.chunkEnds.length;
    this.chunkEnds[index] = this.size;
    // The last chunk is marked twice: after its samples, then after the encoder's tail; it is
    // announced only the second time, when its bytes are complete.
    const last = index === this.totalChunks - 1;
    if ((last && known) || (!last && !known)) {
      this.announced = index + 1;
      for (const l of this.chunkListeners) l({ index });
    }
  }

  /** Completed chunks so far (each has its own URL). */
  get completedChunks() {
    return this.announced;
  }

  private learnPrefix() {
    const head = Buffer.concat(this.spool ? (this.head ?? []) : this.parts);
    if (this.format === 'ogg') {
      // The identification, comment and setup headers: pages of granule position 0 at the start.
      let end = 0;
      for (const page of readOggPages(head)) {
        if (page.granulePosition > 0) break;
        end += page.headerBytes + page.bodyBytes;
      }
      this.prefixEnd = end;
    } else if (this.format === 'wav') {
      this.prefixEnd = WAV_HEADER_BYTES;
      this.sampleRate = head.readUInt32LE(24);
    }
    if (this.spool) {
      this.prefix = Buffer.from(head.subarray(0, this.prefixEnd));
      this.head = null;
    }
  }

  /** Subscribes to the bytes: all given so far at once, then the rest as it comes. Returns the unsubscriber. */
  subscribe(l: LiveListener): () => void {
    if (this.spool && this.state === 'live') return this.subscribeSpooled(l);
    for (const p of this.parts) l.data(p);
    if (this.state === 'done') {
      l.end();
      return () => undefined;
    }
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** A late listener: what is spooled is read back (in pieces), then what came meanwhile, then live. */
  private subscribeSpooled(l: LiveListener): () => void {
    const catching: CatchingUp = { listener: l, queue: [...this.unspooled], cancelled: false };
    const upTo = this.spooled;
    this.catchingUp.add(catching);
    const spool = this.spool!;
    void (async () => {
      try {
        for (let at = 0; at < upTo && !catching.cancelled; at += REPLAY_BYTES) l.data(await spool.read(at, Math.min(upTo, at + REPLAY_BYTES)));
      } catch (err) {
        this.catchingUp.delete(catching);
        if (!catching.cancelled) l.error(err);
        return;
      }
      this.catchingUp.delete(catching);
      if (catching.cancelled) return;
      for (const b of catching.queue) l.data(b);
      catching.queue = [];
      if (this.state === 'done') l.end();
      else if (this.state === 'failed') l.error(this.failure);
      else this.listeners.add(l);
    })();
    return () => {
      catching.cancelled = true;
      this.catchingUp.delete(catching);
      this.listeners.delete(l);
    };
  }

  /** Chunk completions: those so far at once, then each as it comes. */
  onChunk(fn: (e: ChunkEvent) => void): () => void {
    for (let i = 0; i < this.announced; i++) fn({ index: i });
    this.chunkListeners.add(fn);
    return () => this.chunkListeners.delete(fn);
  }

  /** The stream is complete (the file is stored): listeners end; the bytes are the file's from now on. */
  finish() {
    if (this.state !== 'live') return;
    this.state = 'done';
    for (const l of this.listeners) l.end();
    this.listeners.clear();
    this.chunkListeners.clear();
    this.parts = []; // the stored file has them
    this.unspooled = [];
    this.head = null;
  }

  fail(err: unknown) {
    if (this.state !== 'live') return;
    this.state = 'failed';
    this.failure = err;
    this.unspooled = [];
    this.head = null;
    for (const l of this.listeners) l.error(err);
    this.listeners.clear();
    this.chunkListeners.clear();
    this.parts = [];
  }

  /**
   * Chunk `index` as a file of its own, from the live bytes or (once done) from the stored file,
   * which has the same bytes at the same offsets (for WAV all but the header's sizes), or from the
   * spool. Undefined while the chunk is not complete.
   */
  async chunkFile(index: number, stored?: Buffer): Promise<Buffer | undefined> {
    if (!Number.isInteger(index) || index < 0 || index >= this.announced) return undefined;
    const start = index === 0 ? 0 : this.chunkEnds[index - 1];
    const end = this.chunkEnds[index];
    const spool = this.spool;
    const slice = async (from: number, to: number): Promise<Buffer> =>
      stored ? stored.subarray(from, to) : spool ? this.spooledBetween(spool, from, to) : this.bytesBetween(from, to);
    if (this.format === 'mp3') return Buffer.from(await slice(start, end)); // whole frames: playable alone
    if (index === 0 && this.format === 'ogg') return Buffer.from(await slice(0, end));
    const prefix = stored || !spool ? await slice(0, this.prefixEnd) : this.prefix;
    if (this.format === 'ogg') return Buffer.concat([prefix, await slice(start, end)]);
    const from = Math.max(start, this.prefixEnd);
    const samples = await slice(from, end);
    return Buffer.concat([mono16WavHeader(this.sampleRate, samples.length / 2), samples]);
  }

  /** Bytes [from, to) of a spooled stream: from the spool, and the part not written there yet from memory. */
  private async spooledBetween(spool: LiveSpool, from: number, to: number): Promise<Buffer> {
    const spooled = this.spooled;
    const tail = Buffer.concat(this.unspooled);
    const fromSpool = from < spooled ? await spool.read(from, Math.min(to, spooled)) : Buffer.alloc(0);
    if (to <= spooled) return fromSpool;
    return Buffer.concat([fromSpool, tail.subarray(Math.max(0, from - spooled), to - spooled)]);
  }

  private bytesBetween(from: number, to: number): Buffer {
    const out: Buffer[] = [];
    let at = 0;
    for (const p of this.parts) {
      const pEnd = at + p.length;
      if (pEnd > from && at < to) out.push(p.subarray(Math.max(0, from - at), Math.min(p.length, to - at)));
      at = pEnd;
      if (at >= to) break;
    }
    return Buffer.concat(out);
  }
}
