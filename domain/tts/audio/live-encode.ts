import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import {
  asBuffer,
  checkedQuality,
  ENCODER_BLOCK_SAMPLES,
  measuredOggAudioBitrate,
  MP3_BITRATE_KBPS,
  nearestMp3SampleRate,
  openLocalEncoder,
  type EncodedAudio,
  type EncodeOptions,
} from './codec';
import { findFirstMpegFrame, parseMpegFrameHeader } from './mpeg';
import type { AudioFormat } from './types';
import { mono16WavHeader, mono16WavSamples } from './wav';

/** Encoding for a live stream: bytes handed on as they are made, chunk ends marked, one continuous file. */

/** Where the bytes of an encode go as they are made (a live stream), and where each chunk ends. */
export interface EncodeSink {
  /** Bytes of the stream, in order. */
  write(bytes: Buffer): void | Promise<void>;
  /** Everything written so far belongs to chunks up to and including `index`. */
  endChunk(index: number): void;
  /**
   * The sink keeps the file (writes it as it comes): MP3/Ogg bytes are then not gathered here, and
   * the result's `data` is null. WAV is always gathered (its header's sizes are known only at the end).
   */
  readonly keepsFile?: boolean;
}

/** A block of joined samples; `endsChunk` when it is the last block of that chunk. */
export interface TaggedBlock {
  samples: Float32Array;
  endsChunk: number | null;
}

/**
 * encodeBlocks for a live stream: one encoder state for the whole text (so the stream is one
 * continuous file and its concatenation is the file), with each encoder output handed to `sink` as
 * soon as it is made, and the end of each chunk marked. MP3 and Ogg output comes in whole frames
 * and pages. WAV is streamed with a header whose sizes are 0xFFFFFFFF (the length is unknown yet);
 * the returned file has the exact sizes and the same samples.
 */
export async function encodeBlocksLive(
  blocks: AsyncIterable<TaggedBlock>,
  sampleRate: number,
  format: AudioFormat,
  opts: EncodeOptions,
  sink: EncodeSink,
): Promise<Omit<EncodedAudio, 'data'> & { data: Buffer | null; size: number; durationSeconds: number; streamHeaderBytes: number }> {
  const quality = checkedQuality(sampleRate, opts);
  const parts: Buffer[] = [];
  let total = 0;
  let size = 0;
  const gather = format === 'wav' || !sink.keepsFile;
  /** The first bytes (whole MP3 frames): where the stream's bitrate and rate are read. */
  const head: Buffer[] = [];
  let headBytes = 0;
  const oggAudio = new OggAudioBytes();
  const out = async (b: Buffer) => {
    if (!b.length) return;
    size += b.length;
    if (gather) parts.push(b);
    else if (format === 'ogg') oggAudio.add(b);
    else if (headBytes < MP3_HEAD_BYTES) (head.push(b), (headBytes += b.length));
    await sink.write(b);
  };
  if (format === 'wav') {
    await out(mono16WavHeader(sampleRate, null));
    let lastWavChunk: number | null = null;
    for await (const { samples, endsChunk } of blocks) {
      total += samples.length;
      await out(mono16WavSamples({ sampleRate, samples }));
      if (endsChunk !== null) sink.endChunk((lastWavChunk = endsChunk));
    }
    if (lastWavChunk !== null) sink.endChunk(lastWavChunk); // nothing follows: the last chunk is complete
    parts[0] = mono16WavHeader(sampleRate, total);
    return { data: Buffer.concat(parts), size, bitrate: sampleRate * 16, sampleRate, durationSeconds: total / sampleRate, streamHeaderBytes: parts[0].length };
  }
  if (format !== 'mp3' && format !== 'ogg') throw new RangeError(`Unsupported audio format: ${String(format)}`);
  const outputSampleRate = format === 'mp3' ? nearestMp3SampleRate(sampleRate) : sampleRate;
  const encoder = await (opts.encoder ?? openLocalEncoder)(format, sampleRate, quality);
  let lastChunk: number | null = null;
  let first = true;
  let finished = false;
  try {
    for await (const { samples, endsChunk } of blocks) {
      total += samples.length;
      for (let start = 0; start < samples.length; start += ENCODER_BLOCK_SAMPLES) {
        if (!first) await yieldToEventLoop();
        first = false;
        await out(asBuffer(await encoder.encode(samples.subarray(start, start + ENCODER_BLOCK_SAMPLES))));
      }
      if (endsChunk !== null) {
        lastChunk = endsChunk;
        sink.endChunk(endsChunk);
      }
    }
    await out(asBuffer(await encoder.finalize()));
    finished = true;
  } finally {
    if (!finished) encoder.abandon();
  }
  if (lastChunk !== null) sink.endChunk(lastChunk); // the encoder's tail belongs to the last chunk
  const data = gather ? Buffer.concat(parts) : null;
  const durationSeconds = total / sampleRate;
  if (format === 'mp3') {
    const start = data ?? Buffer.concat(head);
    const firstFrame = findFirstMpegFrame(start, 0);
    const header = firstFrame === undefined ? undefined : parseMpegFrameHeader(start, firstFrame);
    return {
      data,
      size,
      bitrate: (header?.bitrateKbps ?? MP3_BITRATE_KBPS[quality]) * 1000,
      sampleRate: header?.sampleRate ?? outputSampleRate,
      durationSeconds,
      streamHeaderBytes: 0,
    };
  }
  const bitrate = data ? measuredOggAudioBitrate(data, durationSeconds) : durationSeconds > 0 ? Math.round((oggAudio.total() * 8) / durationSeconds) : 0;
  return { data, size, bitrate, sampleRate, durationSeconds, streamHeaderBytes: 0 };
}

/** Enough of an MP3 stream's start to find its first frames (one encoder block gives ~100 frames). */
const MP3_HEAD_BYTES = 16 * 1024;

/**
 * measuredOggAudioBitrate's count (bytes of pages past granule 0) over a stream given piece by
 * piece: a page cut between two pieces is kept until it is whole.
 */
class OggAudioBytes {
  private carry: Buffer = Buffer.alloc(0);
  private audio = 0;

  add(bytes: Buffer) {
    let data = this.carry.length ? Buffer.concat([this.carry, bytes]) : bytes;
    let at = 0;
    for (;;) {
      if (data.length - at < 27) break;
      const segments = data[at + 26];
      const headerBytes = 27 + segments;
      if (data.length - at < headerBytes) break;
      let bodyBytes = 0;
      for (let i = 0; i < segments; i++) bodyBytes += data[at + 27 + i];
      if (data.length - at < headerBytes + bodyBytes) break;
      if (Number(data.readBigInt64LE(at + 6)) > 0) this.audio += headerBytes + bodyBytes;
      at += headerBytes + bodyBytes;
    }
    this.carry = Buffer.from(data.subarray(at));
  }

  total() {
    return this.audio;
  }
}
