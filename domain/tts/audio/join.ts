import { decode, encodeBlocks, type EncodeOptions } from './codec';
import { encodeBlocksLive, type EncodeSink, type TaggedBlock } from './live-encode';
import { gcPacer, release } from './gc-pacer';
import { concatPcmBlocks, DEFAULT_CROSSFADE_MS, resample, seamMix, seamOverlap, type Pcm } from './pcm';
import type { AudioFormat } from './types';
import { joinMono16Wavs } from './wav';

const EMPTY = Buffer.alloc(0);

/** A long join decodes hundreds of chunks, each dead a chunk later; collected as they pass (gc-pacer.ts). */
const pacer = gcPacer();

/** A chunk's samples; its WAV bytes are the caller's no more (they are released). */
async function decodeChunk(wav: Buffer): Promise<Pcm> {
  const pcm = await decode(wav, 'wav');
  pacer.passed(wav.byteLength + pcm.samples.byteLength);
  if (pcm.samples.buffer !== wav.buffer) release(wav);
  return pcm;
}

/**
 * One file of `format` from chunks that came as WAV, with the same crossfaded seams whatever the
 * format. A WAV target is joined in 16-bit as the chunks came; other targets decode each chunk only
 * when the encoder reaches it, and `wavs[i]` is emptied once decoded (a long text is hundreds of MB
 * as float samples). One encode for the whole, so one encoder delay and no seams from the codec.
 */
export async function joinWavChunks(
  wavs: Buffer[],
  format: AudioFormat,
  opts: EncodeOptions = {},
): Promise<{ data: Buffer; sampleRate: number; bitrate: number; durationSeconds: number }> {
  const asWav = format === 'wav' ? joinMono16Wavs(wavs) : null;
  if (asWav) return { data: asWav.data, sampleRate: asWav.sampleRate, bitrate: asWav.sampleRate * 16, durationSeconds: asWav.frames / asWav.sampleRate };
  const parts: (() => Promise<Pcm>)[] = wavs.map((_, i) => () => {
    const wav = wavs[i];
    wavs[i] = EMPTY;
    return decodeChunk(wav);
  });
  const first = await parts[0]();
  parts[0] = async () => first;
  return encodeBlocks(concatPcmBlocks(parts), first.sampleRate, format, opts);
}

/**
 * The same join for a non-WAV target, from chunks that are still being made: chunk `i` is asked for
 * (`take(i)`) only when the encoder reaches it, so with a producer that runs a bounded distance ahead
 * (aheadInOrder) a long text never holds more than that window of WAV chunks plus the encoded file.
 */
export async function joinWavChunksInOrder(
  count: number,
  take: (i: number) => Promise<Buffer>,
  format: Exclude<AudioFormat, 'wav'>,
  opts: EncodeOptions = {},
): Promise<{ data: Buffer; sampleRate: number; bitrate: number; durationSeconds: number }> {
  const parts: (() => Promise<Pcm>)[] = Array.from({ length: count }, (_, i) => async () => decodeChunk(await take(i)));
  const first = await parts[0]();
  parts[0] = async () => first;
  return encodeBlocks(concatPcmBlocks(parts), first.sampleRate, format, opts);
}

/**
 * The join of joinWavChunksInOrder (same seams, same crossfade) for a live stream, in any format:
 * the encoded bytes go to `sink` as they are made, and the end of each chunk is marked there, so
 * each chunk's bytes can be served on their own while the rest is still being made. When the sink
 * keeps the file (`keepsFile`), MP3/Ogg bytes are not gathered and `data` is null.
 */
export async function joinWavChunksLive(
  count: number,
  take: (i: number) => Promise<Buffer>,
  format: AudioFormat,
  opts: EncodeOptions,
  sink: EncodeSink,
): Promise<{ data: Buffer | null; size: number; sampleRate: number; bitrate: number; durationSeconds: number; streamHeaderBytes: number }> {
  const first = await decodeChunk(await take(0));
  return encodeBlocksLive(
    taggedBlocks(first, count, async (i) => decodeChunk(await take(i))),
    first.sampleRate,
    format,
    opts,
    sink,
  );
}

/**
 * concatPcmBlocks' blocks, tagged with the chunk each one ends: chunk i is the crossfade it begins
 * with and its body; its last block is given once chunk i + 1 is there (the seam needs its head).
 */
async function* taggedBlocks(first: Pcm, count: number, part: (i: number) => Promise<Pcm>): AsyncGenerator<TaggedBlock> {
  const sampleRate = first.sampleRate;
  const requestedOverlap = Math.round((DEFAULT_CROSSFADE_MS * sampleRate) / 1000);
  let previous = first.samples;
  let from = 0;
  for (let i = 1; i < count; i++) {
    const current = resample(await part(i), sampleRate).samples;
    const overlap = seamOverlap(requestedOverlap, previous.length, current.length);
    yield { samples: previous.subarray(from, previous.length - overlap), endsChunk: i - 1 };
    const tail = previous.length - overlap;
    const mixed = new Float32Array(overlap);
    for (let j = 0; j < overlap; j++) mixed[j] = Math.max(-1, Math.min(1, seamMix(previous[tail + j], current[j], j, overlap)));
    if (overlap) yield { samples: mixed, endsChunk: null };
    // Every block of it has been encoded (the encoders copy what they are given).
    release(previous);
    previous = current;
    from = overlap;
  }
  yield { samples: previous.subarray(from), endsChunk: count - 1 };
}
