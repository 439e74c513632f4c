import type { ProbeResult } from './types';

/**
 * Structural Ogg checks: walk the page headers (with CRC) without decoding audio.
 * Only single-logical-stream files are accepted, which is what TTS engines produce.
 */

const PAGE_HEADER_BYTES = 27;
const FLAG_BEGINNING_OF_STREAM = 0x02;
const FLAG_END_OF_STREAM = 0x04;
const OPUS_GRANULE_RATE = 48000;

export interface OggPage {
  offset: number;
  headerType: number;
  /** -1 when no packet finishes on this page. */
  granulePosition: number;
  serial: number;
  sequence: number;
  headerBytes: number;
  bodyBytes: number;
}

type Codec = { name: 'vorbis'; sampleRate: number } | { name: 'opus'; preSkip: number };

class OggStructureError extends Error {}

export function probeOgg(data: Uint8Array): ProbeResult {
  try {
    const pages = readOggPages(data);
    const codec = identifyCodec(data, pages[0]);
    const last = pages[pages.length - 1];
    if ((last.headerType & FLAG_END_OF_STREAM) === 0) {
      return { ok: false, reason: 'truncated: last page lacks the end-of-stream flag' };
    }
    const finalGranule = [...pages].reverse().find((page) => page.granulePosition >= 0)?.granulePosition ?? 0;
    const durationSeconds = codec.name === 'vorbis' ? finalGranule / codec.sampleRate : Math.max(0, finalGranule - codec.preSkip) / OPUS_GRANULE_RATE;
    return { ok: true, durationSeconds };
  } catch (error) {
    if (error instanceof OggStructureError) return { ok: false, reason: error.message };
    throw error;
  }
}

/**
 * Walks every page of a single-stream Ogg file, validating capture pattern, bounds, CRC and
 * sequence numbers. Throws OggStructureError with a human-readable reason on the first problem.
 */
export function readOggPages(data: Uint8Array): OggPage[] {
  if (data.length === 0) throw new OggStructureError('empty input');
  const pages: OggPage[] = [];
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let offset = 0;

  while (offset < data.length) {
    if (data.length - offset < PAGE_HEADER_BYTES) {
      throw new OggStructureError(`truncated: ${data.length - offset} bytes left where a page header was expected`);
    }
    if (!hasCapturePattern(data, offset)) {
      throw new OggStructureError(offset === 0 ? 'missing OggS capture pattern' : `lost page sync at byte ${offset}`);
    }
    if (data[offset + 4] !== 0) throw new OggStructureError(`unsupported Ogg version ${data[offset + 4]}`);

    const segmentCount = data[offset + 26];
    const headerBytes = PAGE_HEADER_BYTES + segmentCount;
    if (offset + headerBytes > data.length) throw new OggStructureError('truncated: page segment table cut off');
    let bodyBytes = 0;
    for (let i = 0; i < segmentCount; i++) bodyBytes += data[offset + PAGE_HEADER_BYTES + i];
    if (offset + headerBytes + bodyBytes > data.length) {
      throw new OggStructureError(`truncated: page at byte ${offset} declares ${bodyBytes} body bytes but only ${data.length - offset - headerBytes} remain`);
    }

    const page: OggPage = {
      offset,
      headerType: data[offset + 5],
      granulePosition: Number(view.getBigInt64(offset + 6, true)),
      serial: view.getUint32(offset + 14, true),
      sequence: view.getUint32(offset + 18, true),
      headerBytes,
      bodyBytes,
    };
    if (view.getUint32(offset + 22, true) !== pageCrc(data, offset, headerBytes + bodyBytes)) {
      throw new OggStructureError(`corrupt: CRC mismatch in page at byte ${offset}`);
    }
    validateSequence(pages, page);
    pages.push(page);
    offset += headerBytes + bodyBytes;
  }
  return pages;
}

function validateSequence(previous: OggPage[], page: OggPage): void {
  if (previous.length === 0) {
    if ((page.headerType & FLAG_BEGINNING_OF_STREAM) === 0) {
      throw new OggStructureError('first page lacks the beginning-of-stream flag');
    }
    return;
  }
  const first = previous[0];
  const prior = previous[previous.length - 1];
  if (page.serial !== first.serial) throw new OggStructureError('multiplexed or chained Ogg streams are not supported');
  if (page.sequence !== prior.sequence + 1) {
    throw new OggStructureError(`missing page: sequence jumps from ${prior.sequence} to ${page.sequence}`);
  }
  if ((prior.headerType & FLAG_END_OF_STREAM) !== 0) throw new OggStructureError('data after the end-of-stream page');
}

/** The first packet of the stream (on the BOS page) identifies the codec. */
function identifyCodec(data: Uint8Array, firstPage: OggPage): Codec {
  const start = firstPage.offset + firstPage.headerBytes;
  const packet = data.subarray(start, start + firstPage.bodyBytes);
  const view = new DataView(packet.buffer, packet.byteOffset, packet.byteLength);
  if (packet.length >= 30 && packet[0] === 0x01 && ascii(packet, 1, 6) === 'vorbis') {
    const sampleRate = view.getUint32(12, true);
    if (sampleRate === 0) throw new OggStructureError('vorbis id header declares a zero sample rate');
    return { name: 'vorbis', sampleRate };
  }
  if (packet.length >= 19 && ascii(packet, 0, 8) === 'OpusHead') {
    return { name: 'opus', preSkip: view.getUint16(10, true) };
  }
  throw new OggStructureError('first Ogg packet is neither a Vorbis nor an Opus identification header');
}

function hasCapturePattern(data: Uint8Array, offset: number): boolean {
  return data[offset] === 0x4f && data[offset + 1] === 0x67 && data[offset + 2] === 0x67 && data[offset + 3] === 0x53; // "OggS"
}

function ascii(data: Uint8Array, start: number, length: number): string {
  return String.fromCharCode(...data.subarray(start, start + length));
}

// Ogg's CRC-32: polynomial 0x04c11db7, MSB-first, zero initial value, no final XOR.
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 24;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
    table[i] = crc >>> 0;
  }
  return table;
})();

/** CRC of a page, computed as if its CRC field (bytes 22..25) were zero. */
function pageCrc(data: Uint8Array, offset: number, length: number): number {
  let crc = 0;
  for (let i = 0; i < length; i++) {
    const byte = i >= 22 && i < 26 ? 0 : data[offset + i];
    crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ byte) & 0xff]) >>> 0;
  }
  return crc;
}
