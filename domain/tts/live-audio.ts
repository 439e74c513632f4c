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

/**
 * The audio of one progressive generation while it is being made: every encoded byte in order (a
 * client that joins late is given all of them from the start, then the rest as it comes), and where
 * each chunk ends, so each chunk can be served on its own. Lives in the memory of the instance that
 * makes the audio; once the file is stored, the file is what is served.
 */
export class LiveAudio implements EncodeSink {
  private parts: Buffer[] = [];
  private size = 0;
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

  write(bytes: Buffer) {
    if (this.state !== 'live' || !bytes.length) return;
    this.parts.push(bytes);
    this.size += bytes.length;
    for (const l of this.listeners) l.data(bytes);
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
    const head = Buffer.concat(this.parts);
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
  }

  /** Subscribes to the bytes: all given so far at once, then the rest as it comes. Returns the unsubscriber. */
  subscribe(l: LiveListener): () => void {
    for (const p of this.parts) l.data(p);
    if (this.state === 'done') {
      l.end();
      return () => undefined;
    }
    this.listeners.add(l);
    return () => this.listeners.delete(l);
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
  }

  fail(err: unknown) {
    if (this.state !== 'live') return;
    this.state = 'failed';
    for (const l of this.listeners) l.error(err);
    this.listeners.clear();
    this.chunkListeners.clear();
    this.parts = [];
  }

  /**
   * Chunk `index` as a file of its own, from the live bytes or (once done) from the stored file,
   * which has the same bytes at the same offsets (for WAV all but the header's sizes). Undefined
   * while the chunk is not complete.
   */
  chunkFile(index: number, stored?: Buffer): Buffer | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.announced) return undefined;
    const start = index === 0 ? 0 : this.chunkEnds[index - 1];
    const end = this.chunkEnds[index];
    const slice = (from: number, to: number) => (stored ? stored.subarray(from, to) : this.bytesBetween(from, to));
    if (this.format === 'mp3') return Buffer.from(slice(start, end)); // whole frames: playable alone
    if (index === 0 && this.format === 'ogg') return Buffer.from(slice(0, end));
    if (this.format === 'ogg') return Buffer.concat([slice(0, this.prefixEnd), slice(start, end)]);
    const from = Math.max(start, this.prefixEnd);
    const samples = slice(from, end);
    return Buffer.concat([mono16WavHeader(this.sampleRate, samples.length / 2), samples]);
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
