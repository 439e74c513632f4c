import { decode, encodeBlocks, type EncodeOptions } from './codec';
import { concatPcmBlocks, type Pcm } from './pcm';
import type { AudioFormat } from './types';
import { joinMono16Wavs } from './wav';

const EMPTY = Buffer.alloc(0);

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
    return decode(wav, 'wav');
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
  const parts: (() => Promise<Pcm>)[] = Array.from({ length: count }, (_, i) => async () => decode(await take(i), 'wav'));
  const first = await parts[0]();
  parts[0] = async () => first;
  return encodeBlocks(concatPcmBlocks(parts), first.sampleRate, format, opts);
}
