import type { ProbeResult } from './types';

/**
 * Structural MP3 (MPEG audio) checks: walk the frame headers without decoding any audio.
 * Walking every header is cheap (a few bytes per ~200-byte frame) and catches truncation,
 * lost sync and non-MP3 payloads before we hand bytes to a client.
 */

export interface MpegFrameHeader {
  version: 1 | 2 | 2.5;
  layer: 1 | 2 | 3;
  bitrateKbps: number;
  sampleRate: number;
  channels: 1 | 2;
  frameBytes: number;
  samplesPerFrame: number;
}

// Bitrates in kbps, indexed by the 4-bit header field (0 = free format, unsupported here).
const BITRATES_V1: Record<1 | 2 | 3, readonly number[]> = {
  1: [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  2: [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  3: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
};
const BITRATES_V2: Record<1 | 2 | 3, readonly number[]> = {
  1: [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  3: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const SAMPLE_RATES: Record<1 | 2 | 2.5, readonly number[]> = {
  1: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  2.5: [11025, 12000, 8000],
};

/** How far past any ID3v2 tag we look for the first frame (some files carry junk/padding). */
const MAX_SYNC_SEARCH_BYTES = 16 * 1024;
const MIN_FRAMES = 2;

/** Parses a 4-byte MPEG audio frame header at `offset`, or returns undefined if it is not one. */
export function parseMpegFrameHeader(data: Uint8Array, offset: number): MpegFrameHeader | undefined {
  if (offset + 4 > data.length) return undefined;
  const b1 = data[offset + 1];
  const b2 = data[offset + 2];
  const b3 = data[offset + 3];
  if (data[offset] !== 0xff || (b1 & 0xe0) !== 0xe0) return undefined; // 11-bit frame sync

  const versionBits = (b1 >> 3) & 0x03;
  const layerBits = (b1 >> 1) & 0x03;
  const bitrateIndex = b2 >> 4;
  const sampleRateIndex = (b2 >> 2) & 0x03;
  if (versionBits === 1 || layerBits === 0 || bitrateIndex === 0 || bitrateIndex === 15 || sampleRateIndex === 3) {
    return undefined; // reserved values, or free-format bitrate whose frame length we cannot know
  }
  if ((b3 & 0x03) === 2) return undefined; // reserved emphasis

  const version = versionBits === 3 ? 1 : versionBits === 2 ? 2 : 2.5;
  const layer = (4 - layerBits) as 1 | 2 | 3;
  const bitrateKbps = (version === 1 ? BITRATES_V1 : BITRATES_V2)[layer][bitrateIndex];
  const sampleRate = SAMPLE_RATES[version][sampleRateIndex];
  const padding = (b2 >> 1) & 0x01;
  const channels = b3 >> 6 === 3 ? 1 : 2;

  let frameBytes: number;
  let samplesPerFrame: number;
  if (layer === 1) {
    frameBytes = (Math.floor((12 * bitrateKbps * 1000) / sampleRate) + padding) * 4;
    samplesPerFrame = 384;
  } else if (layer === 2 || version === 1) {
    frameBytes = Math.floor((144 * bitrateKbps * 1000) / sampleRate) + padding;
    samplesPerFrame = 1152;
  } else {
    // Layer III in MPEG-2/2.5 ("low sampling frequency") frames carry half the samples.
    frameBytes = Math.floor((72 * bitrateKbps * 1000) / sampleRate) + padding;
    samplesPerFrame = 576;
  }
  return { version, layer, bitrateKbps, sampleRate, channels, frameBytes, samplesPerFrame };
}

/** Byte offset of the first audio byte after an ID3v2 tag (0 when there is none). */
export function skipId3v2(data: Uint8Array): number {
  if (data.length < 10 || data[0] !== 0x49 || data[1] !== 0x44 || data[2] !== 0x33) return 0; // "ID3"
  // The tag size is a 28-bit "syncsafe" integer (7 bits per byte); a footer adds 10 bytes.
  const size = ((data[6] & 0x7f) << 21) | ((data[7] & 0x7f) << 14) | ((data[8] & 0x7f) << 7) | (data[9] & 0x7f);
  const hasFooter = (data[5] & 0x10) !== 0;
  return 10 + size + (hasFooter ? 10 : 0);
}

/** Finds the first frame, confirmed by a second consistent header right after it. */
export function findFirstMpegFrame(data: Uint8Array, from: number): number | undefined {
  const searchEnd = Math.min(data.length - 4, from + MAX_SYNC_SEARCH_BYTES);
  for (let offset = from; offset <= searchEnd; offset++) {
    if (data[offset] !== 0xff) continue;
    const header = parseMpegFrameHeader(data, offset);
    if (!header) continue;
    const next = parseMpegFrameHeader(data, offset + header.frameBytes);
    if (next && sameStream(header, next)) return offset;
  }
  return undefined;
}

export function probeMp3(data: Uint8Array): ProbeResult {
  if (data.length === 0) return { ok: false, reason: 'empty input' };
  const audioStart = skipId3v2(data);
  if (audioStart >= data.length) return { ok: false, reason: 'truncated: ID3v2 tag extends past the end of the file' };

  const firstFrame = findFirstMpegFrame(data, audioStart);
  if (firstFrame === undefined) return { ok: false, reason: 'no MPEG audio frame sync found' };
  const first = parseMpegFrameHeader(data, firstFrame)!;

  let offset = firstFrame;
  let frames = 0;
  while (offset < data.length) {
    const header = parseMpegFrameHeader(data, offset);
    if (!header) {
      if (isTrailingTag(data, offset)) break;
      if (data.length - offset < 4) {
        return { ok: false, reason: `truncated: ${data.length - offset} stray bytes after the last frame` };
      }
      return { ok: false, reason: `lost frame sync at byte ${offset}` };
    }
    if (!sameStream(first, header)) {
      return { ok: false, reason: `frame at byte ${offset} changes layer/version/sample rate mid-stream` };
    }
    if (offset + header.frameBytes > data.length) {
      return {
        ok: false,
        reason: `truncated: final frame declares ${header.frameBytes} bytes but only ${data.length - offset} remain`,
      };
    }
    frames++;
    offset += header.frameBytes;
  }

  if (frames < MIN_FRAMES) return { ok: false, reason: `only ${frames} MPEG frame(s) found` };

  // A Xing/Info frame is metadata, not audio; when it records the frame count, hold the file to it.
  const xing = readXingFrameCount(data, firstFrame, first);
  let audioFrames = frames;
  if (xing.present) {
    audioFrames = frames - 1;
    if (xing.frameCount !== undefined && audioFrames < xing.frameCount) {
      return { ok: false, reason: `truncated: Xing header declares ${xing.frameCount} frames but ${audioFrames} are present` };
    }
  }
  return { ok: true, durationSeconds: (audioFrames * first.samplesPerFrame) / first.sampleRate };
}

function sameStream(a: MpegFrameHeader, b: MpegFrameHeader): boolean {
  return a.version === b.version && a.layer === b.layer && a.sampleRate === b.sampleRate;
}

/** ID3v1 ("TAG"), APEv2 and Lyrics3 tags may legitimately follow the last frame. */
function isTrailingTag(data: Uint8Array, offset: number): boolean {
  const ascii = (length: number) => String.fromCharCode(...data.subarray(offset, offset + length));
  return ascii(3) === 'TAG' || ascii(8) === 'APETAGEX' || ascii(6) === 'LYRICS';
}

function readXingFrameCount(data: Uint8Array, frameOffset: number, header: MpegFrameHeader): { present: boolean; frameCount?: number } {
  if (header.layer !== 3) return { present: false };
  // The tag sits right after the Layer III side information, whose size depends on version/channels.
  const sideInfoBytes = header.version === 1 ? (header.channels === 1 ? 17 : 32) : header.channels === 1 ? 9 : 17;
  const tagOffset = frameOffset + 4 + sideInfoBytes;
  if (tagOffset + 12 > frameOffset + header.frameBytes) return { present: false };
  const id = String.fromCharCode(...data.subarray(tagOffset, tagOffset + 4));
  if (id !== 'Xing' && id !== 'Info') return { present: false };
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const flags = view.getUint32(tagOffset + 4);
  return { present: true, frameCount: flags & 0x01 ? view.getUint32(tagOffset + 8) : undefined };
}
