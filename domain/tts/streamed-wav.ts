import { decode, encodeBlocksLive, type AudioFormat, type EncodeOptions, type EncodeSink } from './audio';
import type { TaggedBlock } from './audio/live-encode';
import { DEFAULT_CROSSFADE_MS, resample, seamMix, seamOverlap } from './audio/pcm';
import { decodeWav } from './audio/wav';
import { AudioDecodeError } from './audio/types';

/**
 * Decodes a WAV body as it arrives: the header once it is all there, then each run of whole sample
 * frames, with the same conversion as decoding the whole file. A data size of 0 or 0xFFFFFFFF (the
 * unknown-length sizes of streaming vendors) means "until the body ends".
 */
export class WavStreamDecoder {
  private pending: Buffer = Buffer.alloc(0);
  /** The bytes up to the start of the samples (fmt and any other chunks), once all of them arrived. */
  private header: Buffer | undefined;
  private blockAlign = 0;
  /** Sample bytes still to come per the header; Infinity when it declares an unknown length. */
  private remaining = Infinity;
  sampleRate: number | undefined;

  /** Takes the next bytes of the body; returns the samples they complete (mono, as decodeWav gives them). */
  push(bytes: Buffer): Float32Array[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, bytes]) : bytes;
    if (!this.header && !this.readHeader()) return [];
    const usable = Math.min(this.pending.length, this.remaining);
    const whole = usable - (usable % this.blockAlign);
    if (whole <= 0) return [];
    const frames = this.pending.subarray(0, whole);
    this.pending = this.pending.subarray(whole);
    this.remaining -= whole;
    // The header in front of each run lets decodeWav do the conversion (and its checks) exactly as for the whole file.
    const header = Buffer.from(this.header!);
    header.writeUInt32LE(whole, header.length - 4);
    const pcm = decodeWav(Buffer.concat([header, frames]));
    this.sampleRate = pcm.sampleRate;
    return [pcm.samples];
  }

  private readHeader(): boolean {
    const data = this.pending;
    if (data.length < 12) return false;
    if (data.toString('ascii', 0, 4) !== 'RIFF' || data.toString('ascii', 8, 12) !== 'WAVE') throw new AudioDecodeError('wav', 'missing RIFF/WAVE header');
    let offset = 12;
    while (offset + 8 <= data.length) {
      const id = data.toString('ascii', offset, offset + 4);
      const size = data.readUInt32LE(offset + 4);
      if (id === 'data') {
        this.header = Buffer.from(data.subarray(0, offset + 8));
        // Decoding the header alone checks the format and gives the frame size and sample rate.
        const probe = Buffer.from(this.header);
        probe.writeUInt32LE(0, probe.length - 4);
        this.sampleRate = decodeWav(probe).sampleRate;
        this.blockAlign = this.header.readUInt16LE(this.fmtOffset() + 12);
        if (this.blockAlign < 1) throw new AudioDecodeError('wav', 'fmt chunk declares a zero block align');
        this.remaining = size === 0 || size === 0xffffffff ? Infinity : size;
        this.pending = data.subarray(offset + 8);
        return true;
      }
      if (offset + 8 + size > data.length) return false; // the rest of this chunk is still to come
      offset += 8 + size + (size % 2);
    }
    return false;
  }

  private fmtOffset(): number {
    const h = this.header!;
    for (let offset = 12; offset + 8 <= h.length; offset += 8 + h.readUInt32LE(offset + 4) + (h.readUInt32LE(offset + 4) % 2)) {
      if (h.toString('ascii', offset, offset + 4) === 'fmt ') return offset + 8;
    }
    throw new AudioDecodeError('wav', 'no fmt chunk found');
  }
}

/**
 * joinWavChunksLive (same seams, same crossfade, one encoder for the whole) where chunk 0 comes as
 * a stream of WAV bytes: its samples go to the encoder as they arrive, so the first encoded bytes
 * reach `sink` before the vendor has finished sending chunk 0. Only the last 2 × crossfade samples
 * of chunk 0 are held back (its seam with chunk 1 needs them); chunks 1… are taken whole, in order.
 */
export async function joinStreamedWavChunksLive(
  first: AsyncIterable<Buffer>,
  count: number,
  take: (i: number) => Promise<Buffer>,
  format: AudioFormat,
  opts: EncodeOptions,
  sink: EncodeSink,
): Promise<{ data: Buffer | null; size: number; sampleRate: number; bitrate: number; durationSeconds: number; streamHeaderBytes: number }> {
  const decoder = new WavStreamDecoder();
  const bytes = first[Symbol.asyncIterator]();
  const early: Float32Array[] = [];
  let ended = false;
  // The encoder needs the sample rate: read until the header is there.
  while (decoder.sampleRate === undefined) {
    const r = await bytes.next();
    if (r.done) {
      ended = true;
      break;
    }
    early.push(...decoder.push(r.value));
  }
  if (decoder.sampleRate === undefined) throw new AudioDecodeError('wav', 'the stream ended before its header');
  const sampleRate = decoder.sampleRate;
  const requestedOverlap = Math.round((DEFAULT_CROSSFADE_MS * sampleRate) / 1000);
  // seamOverlap never takes more than half of either side: holding 2 × crossfade keeps the seam as it would be.
  const holdBack = count > 1 ? 2 * requestedOverlap : 0;

  async function* blocks(): AsyncGenerator<TaggedBlock> {
    let held: Float32Array = new Float32Array(0);
    function* give(samples: Float32Array): Generator<TaggedBlock> {
      const all = held.length ? concat(held, samples) : samples;
      const cut = Math.max(0, all.length - holdBack);
      if (cut > 0) yield { samples: all.subarray(0, cut), endsChunk: null };
      held = all.slice(cut);
    }
    for (const samples of early) yield* give(samples);
    if (!ended) for await (const part of { [Symbol.asyncIterator]: () => bytes }) for (const samples of decoder.push(part)) yield* give(samples);
    // From here on as joinWavChunksLive, with chunk 0 reduced to the samples not yet given.
    let previous = held;
    let from = 0;
    for (let i = 1; i < count; i++) {
      const current = resample(await decode(await take(i), 'wav'), sampleRate).samples;
      const overlap = seamOverlap(requestedOverlap, previous.length, current.length);
      yield { samples: previous.subarray(from, previous.length - overlap), endsChunk: i - 1 };
      const tail = previous.length - overlap;
      const mixed = new Float32Array(overlap);
      for (let j = 0; j < overlap; j++) mixed[j] = Math.max(-1, Math.min(1, seamMix(previous[tail + j], current[j], j, overlap)));
      if (overlap) yield { samples: mixed, endsChunk: null };
      previous = current;
      from = overlap;
    }
    yield { samples: previous.subarray(from), endsChunk: count - 1 };
  }

  return encodeBlocksLive(blocks(), sampleRate, format, opts, sink);
}

function concat(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
