import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { assertValidSampleRate, type Pcm } from './pcm';
import { findFirstMpegFrame, parseMpegFrameHeader, probeMp3, skipId3v2 } from './mpeg';
import { probeOgg, readOggPages } from './ogg';
import { AudioDecodeError, type AudioFormat, type ProbeResult } from './types';
import { createMediaEncoder, decodeMpegAudio, decodeOggVorbisAudio, type DecodedChannels } from './wasm-codecs';
import { decodeWav, encodeWav, probeWav } from './wav';

export { AudioDecodeError, type AudioFormat, type ProbeResult } from './types';

export type EncodeQuality = 'low' | 'medium' | 'high' | 'standard';

export interface EncodeOptions {
  /** Default 'standard' (same as 'medium'). */
  quality?: EncodeQuality;
  /**
   * Where the MP3/Ogg encoder runs; default in this thread. The gateway passes its audio worker
   * pool's, so a long encode does not take the event loop's CPU. Same encoder, same blocks: same bytes.
   */
  encoder?: OpenEncoder;
}

/** An MP3 or Ogg Vorbis encoder fed block by block; each call's output is the caller's to keep. */
export interface BlockEncoder {
  encode(block: Float32Array): Uint8Array | Promise<Uint8Array>;
  /** The encoder's tail; the encoder is gone afterwards. */
  finalize(): Uint8Array | Promise<Uint8Array>;
  /** Gives the encoder up without its tail (the encode failed elsewhere). */
  abandon(): void;
}

export type OpenEncoder = (format: 'mp3' | 'ogg', sampleRate: number, quality: EncodeQuality) => Promise<BlockEncoder>;

export interface EncodedAudio {
  data: Buffer;
  /** Bits per second: nominal for WAV/MP3 (CBR), measured audio payload for Ogg Vorbis (VBR). */
  bitrate: number;
  /** Sample rate of the encoded stream (MP3 may differ from the input; see encode). */
  sampleRate: number;
}

const CONTENT_TYPES: Record<AudioFormat, string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
};

// Mono speech needs far less than music: 32 kbps is still intelligible, 128 kbps is ample.
// LAME caps the bitrate at 64 kbps for 8-12 kHz input; encode() reports the rate actually used.
export const MP3_BITRATE_KBPS = { low: 32, medium: 64, standard: 64, high: 128 } as const satisfies Record<EncodeQuality, number>;
const OGG_VBR_QUALITY: Record<EncodeQuality, number> = { low: 0, medium: 3, standard: 3, high: 6 };

/** Sample rates defined by MPEG-1/2/2.5 Layer III. */
const MP3_SAMPLE_RATES = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000] as const;
type Mp3SampleRate = (typeof MP3_SAMPLE_RATES)[number];

// A fixed Ogg serial number keeps output deterministic (identical input -> identical bytes, which
// keeps caches and ETags stable). Uniqueness only matters when chaining streams, which we never do.
const OGG_SERIAL_NUMBER = 0x54545331;

/** Feed the encoders in bounded blocks (~2.7 s at 24 kHz) so their WASM buffers stay small. */
export const ENCODER_BLOCK_SAMPLES = 64 * 1024;

export function contentTypeFor(format: AudioFormat): string {
  const contentType = CONTENT_TYPES[format];
  if (!contentType) throw new RangeError(`Unsupported audio format: ${String(format)}`);
  return contentType;
}

/**
 * Encodes mono PCM. WAV is 16-bit PCM at the input rate; Ogg Vorbis keeps the input rate; MP3
 * only supports the MPEG rates (8 kHz..48 kHz), so other input rates are resampled by the encoder
 * to the nearest supported rate at or above the input (capped at 48 kHz).
 */
export async function encode(pcm: Pcm, format: AudioFormat, opts: EncodeOptions = {}): Promise<EncodedAudio> {
  const quality = checkedQuality(pcm.sampleRate, opts);
  switch (format) {
    case 'wav':
      return { data: encodeWav(pcm), bitrate: pcm.sampleRate * 16, sampleRate: pcm.sampleRate };
    case 'mp3':
      return encodeMp3(oneBlock(pcm.samples), pcm.sampleRate, quality, opts.encoder ?? openLocalEncoder);
    case 'ogg':
      return encodeOggVorbis(oneBlock(pcm.samples), pcm.sampleRate, quality, opts.encoder ?? openLocalEncoder);
    default:
      throw new RangeError(`Unsupported audio format: ${String(format)}`);
  }
}

export function checkedQuality(sampleRate: number, opts: EncodeOptions): EncodeQuality {
  assertValidSampleRate(sampleRate);
  const quality = opts.quality ?? 'standard';
  if (!(quality in OGG_VBR_QUALITY)) throw new RangeError(`Unsupported quality: ${String(quality)}`);
  return quality;
}

async function* oneBlock(samples: Float32Array) {
  yield samples;
}

/** Decodes to mono PCM (multi-channel audio is averaged). Throws AudioDecodeError on bad input. */
export async function decode(data: Buffer, format: AudioFormat): Promise<Pcm> {
  if (data.length === 0) throw new AudioDecodeError(format, 'empty input');
  switch (format) {
    case 'wav':
      return decodeWav(data);
    case 'mp3':
      // mpg123 resyncs aggressively and will "decode" false frame syncs found in arbitrary bytes;
      // insist on two chained, consistent frame headers first so garbage is rejected, not played.
      if (findFirstMpegFrame(data, skipId3v2(data)) === undefined) {
        throw new AudioDecodeError(format, 'no MPEG audio frame sync found');
      }
      return decodeWithLibrary(format, () => decodeMpegAudio(data, (decoded) => toMonoPcm(format, decoded, 'no decodable MPEG audio frames')));
    case 'ogg':
      if (data.toString('latin1', 0, 4) !== 'OggS') throw new AudioDecodeError(format, 'missing OggS capture pattern');
      return decodeWithLibrary(format, () =>
        decodeOggVorbisAudio(data, (decoded) => toMonoPcm(format, decoded, 'no decodable Vorbis audio (only Ogg Vorbis is supported)')),
      );
    default:
      throw new RangeError(`Unsupported audio format: ${String(format)}`);
  }
}

/**
 * Cheap structural validation (headers and framing only, no audio decoding), used to reject
 * empty, truncated or mislabelled upstream audio. `durationSeconds` comes from the container:
 * for MP3 it includes encoder padding, so it can exceed the decoded length by a few frames.
 */
export function probe(data: Buffer, format: AudioFormat): ProbeResult {
  if (data.length === 0) return { ok: false, reason: 'empty input' };
  switch (format) {
    case 'wav':
      return probeWav(data);
    case 'mp3':
      return probeMp3(data);
    case 'ogg':
      return probeOgg(data);
    default:
      return { ok: false, reason: `unsupported audio format: ${String(format)}` };
  }
}

/** Decode then re-encode. Always re-encodes, even when `from === to`, so `opts.quality` applies. */
export async function transcode(data: Buffer, from: AudioFormat, to: AudioFormat, opts?: EncodeOptions): Promise<EncodedAudio> {
  return encode(await decode(data, from), to, opts);
}

/**
 * Encodes PCM given as a sequence of blocks (see concatPcmBlocks) without ever holding all of it:
 * a long joined text is hundreds of MB as float samples, the encoded file a few percent of that.
 */
export async function encodeBlocks(
  blocks: AsyncGenerator<Float32Array, { sampleRate: number; samples: number }>,
  sampleRate: number,
  format: AudioFormat,
  opts: EncodeOptions = {},
): Promise<EncodedAudio & { durationSeconds: number }> {
  const quality = checkedQuality(sampleRate, opts);
  if (format === 'wav') {
    // The 16-bit file is as large as the samples gathered here (half their float size): gathering is fine.
    const gathered: Float32Array[] = [];
    for (let r = await blocks.next(); !r.done; r = await blocks.next()) gathered.push(r.value);
    const samples = new Float32Array(gathered.reduce((n, b) => n + b.length, 0));
    gathered.reduce((at, b) => (samples.set(b, at), at + b.length), 0);
    return { ...(await encode({ sampleRate, samples }, 'wav', opts)), durationSeconds: samples.length / sampleRate };
  }
  let total = 0;
  const counted = (async function* () {
    for (let r = await blocks.next(); !r.done; r = await blocks.next()) {
      total += r.value.length;
      yield r.value;
    }
  })();
  if (format !== 'mp3' && format !== 'ogg') throw new RangeError(`Unsupported audio format: ${String(format)}`);
  const encoded = await (format === 'mp3' ? encodeMp3 : encodeOggVorbis)(counted, sampleRate, quality, opts.encoder ?? openLocalEncoder);
  return { ...encoded, durationSeconds: total / sampleRate };
}

/** The encoder of this thread: a fresh WASM instance configured as every encode of `format` is. */
export const openLocalEncoder: OpenEncoder = async (format, sampleRate, quality) => {
  const encoder =
    format === 'mp3'
      ? await createMediaEncoder('audio/mpeg').then((e) => {
          // Always pin the output rate: otherwise LAME silently downsamples at low bitrates.
          e.configure({ channels: 1, sampleRate, bitrate: MP3_BITRATE_KBPS[quality], outputSampleRate: nearestMp3SampleRate(sampleRate) });
          return e as { encode(samples: readonly Float32Array[]): Uint8Array; finalize(): Uint8Array };
        })
      : await createMediaEncoder('audio/ogg').then((e) => {
          e.configure({ channels: 1, sampleRate, vbrQuality: OGG_VBR_QUALITY[quality], oggSerialNo: OGG_SERIAL_NUMBER });
          return e as { encode(samples: readonly Float32Array[]): Uint8Array; finalize(): Uint8Array };
        });
  // The encoder returns views into its own WASM memory, valid only until the next call: copied.
  return {
    encode: (block) => encoder.encode([block]).slice(),
    finalize: () => encoder.finalize().slice(),
    abandon: () => undefined,
  };
};

export const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

async function encodeMp3(blocks: AsyncIterable<Float32Array>, sampleRate: number, quality: EncodeQuality, open: OpenEncoder): Promise<EncodedAudio> {
  const data = await runEncoder(await open('mp3', sampleRate, quality), blocks);
  const firstFrame = findFirstMpegFrame(data, 0);
  const header = firstFrame === undefined ? undefined : parseMpegFrameHeader(data, firstFrame);
  return { data, bitrate: (header?.bitrateKbps ?? MP3_BITRATE_KBPS[quality]) * 1000, sampleRate: header?.sampleRate ?? nearestMp3SampleRate(sampleRate) };
}

async function encodeOggVorbis(blocks: AsyncIterable<Float32Array>, sampleRate: number, quality: EncodeQuality, open: OpenEncoder): Promise<EncodedAudio> {
  let samples = 0;
  const data = await runEncoder(await open('ogg', sampleRate, quality), blocks, (n) => (samples += n));
  return { data, bitrate: measuredOggAudioBitrate(data, samples / sampleRate), sampleRate };
}

async function runEncoder(encoder: BlockEncoder, blocks: AsyncIterable<Float32Array>, onSamples?: (n: number) => void): Promise<Buffer> {
  const parts: Buffer[] = [];
  let first = true;
  let finished = false;
  try {
    for await (const block of blocks) {
      onSamples?.(block.length);
      for (let start = 0; start < block.length; start += ENCODER_BLOCK_SAMPLES) {
        // An encoder in this thread runs at roughly 100x real time: yielding between blocks keeps a
        // long text from stalling every other request for the whole encode.
        if (!first) await yieldToEventLoop();
        first = false;
        parts.push(asBuffer(await encoder.encode(block.subarray(start, start + ENCODER_BLOCK_SAMPLES))));
      }
    }
    parts.push(asBuffer(await encoder.finalize()));
    finished = true;
  } finally {
    if (!finished) encoder.abandon();
  }
  return Buffer.concat(parts);
}

export function nearestMp3SampleRate(sampleRate: number): Mp3SampleRate {
  return MP3_SAMPLE_RATES.find((rate) => rate >= sampleRate) ?? 48000;
}

/**
 * Vorbis is VBR, so report what the audio actually costs. The header pages (granule 0) carry
 * ~3-4 KB of codebooks regardless of length, so they are excluded to keep short clips comparable.
 */
export function measuredOggAudioBitrate(data: Buffer, seconds: number): number {
  if (seconds <= 0) return 0;
  const audioBytes = readOggPages(data)
    .filter((page) => page.granulePosition > 0)
    .reduce((sum, page) => sum + page.headerBytes + page.bodyBytes, 0);
  return Math.round((audioBytes * 8) / seconds);
}

function toMonoPcm(format: AudioFormat, decoded: DecodedChannels, emptyReason: string): Pcm {
  const { channelData, samplesDecoded, sampleRate } = decoded;
  if (!samplesDecoded || channelData.length === 0 || !sampleRate) throw new AudioDecodeError(format, emptyReason);

  // Copies out of the decoder's buffers, averages the channels and clips lossy-codec overshoot.
  const samples = new Float32Array(samplesDecoded);
  const weight = 1 / channelData.length;
  for (const channel of channelData) {
    for (let i = 0; i < samplesDecoded; i++) samples[i] += channel[i] * weight;
  }
  for (let i = 0; i < samplesDecoded; i++) samples[i] = Math.max(-1, Math.min(1, samples[i]));
  return { sampleRate, samples };
}

async function decodeWithLibrary(format: AudioFormat, run: () => Promise<Pcm>): Promise<Pcm> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AudioDecodeError) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw new AudioDecodeError(format, `decoder failed: ${detail}`, { cause: error });
  }
}
