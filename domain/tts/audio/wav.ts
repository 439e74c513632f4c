import { assertValidSampleRate, DEFAULT_CROSSFADE_MS, seamMix, seamOverlap, type Pcm } from './pcm';
import { AudioDecodeError, type ProbeResult } from './types';

/** RIFF/WAVE reading and writing, done by hand: the format is simple and a dependency would be overkill. */

const WAV_HEADER_BYTES = 44;
const FORMAT_PCM = 0x0001;
const FORMAT_IEEE_FLOAT = 0x0003;
const FORMAT_EXTENSIBLE = 0xfffe;

interface WavLayout {
  encoding: 'pcm' | 'float';
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** Bytes per sample frame (all channels). */
  blockAlign: number;
  dataOffset: number;
  /** Data length as declared by the chunk header; may exceed what is actually present. */
  declaredDataBytes: number;
}

class WavStructureError extends Error {}

/** A mono 16-bit WAV buffer of `frames` samples with its header written (the data left zeroed). */
function allocMono16Wav(sampleRate: number, frames: number): Buffer {
  const dataBytes = frames * 2;
  const out = Buffer.alloc(WAV_HEADER_BYTES + dataBytes);
  out.write('RIFF', 0, 'ascii');
  out.writeUInt32LE(36 + dataBytes, 4);
  out.write('WAVE', 8, 'ascii');
  out.write('fmt ', 12, 'ascii');
  out.writeUInt32LE(16, 16); // fmt chunk size
  out.writeUInt16LE(FORMAT_PCM, 20);
  out.writeUInt16LE(1, 22); // channels
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate * 2, 28); // byte rate
  out.writeUInt16LE(2, 32); // block align
  out.writeUInt16LE(16, 34); // bits per sample
  out.write('data', 36, 'ascii');
  out.writeUInt32LE(dataBytes, 40);
  return out;
}

/** The samples of a mono 16-bit WAV as an Int16Array (a view when aligned, else a copy). */
function mono16Samples(data: Buffer, layout: WavLayout, frames: number): Int16Array {
  const start = data.byteOffset + layout.dataOffset;
  return start % 2 === 0 ? new Int16Array(data.buffer, start, frames) : new Int16Array(data.buffer.slice(start, start + frames * 2));
}

/**
 * Joins mono 16-bit WAVs of one sample rate into one WAV with the same equal-power crossfade at each
 * seam as concatPcm, staying in 16-bit: no float round trip, no second full-length encode (a long
 * progressive generation is tens of MB). Null when the parts are not all of that kind (or the machine
 * is big-endian); the caller then decodes, concatenates and encodes.
 */
export function joinMono16Wavs(parts: Buffer[], crossfadeMs = DEFAULT_CROSSFADE_MS): { data: Buffer; sampleRate: number; frames: number } | null {
  if (!LITTLE_ENDIAN || parts.length === 0) return null;
  const chunks: Int16Array[] = [];
  let sampleRate = 0;
  for (const part of parts) {
    let layout: WavLayout;
    try {
      layout = parseWavLayout(part);
    } catch {
      return null;
    }
    if (layout.encoding !== 'pcm' || layout.bitsPerSample !== 16 || layout.channels !== 1) return null;
    if (sampleRate && layout.sampleRate !== sampleRate) return null;
    sampleRate = layout.sampleRate;
    const frames = Math.floor(Math.min(layout.declaredDataBytes, part.length - layout.dataOffset) / layout.blockAlign);
    chunks.push(mono16Samples(part, layout, frames));
  }
  const requested = Math.round((crossfadeMs * sampleRate) / 1000);
  const overlaps = chunks.slice(1).map((chunk, i) => seamOverlap(requested, chunks[i].length, chunk.length));
  const frames = chunks.reduce((sum, c) => sum + c.length, 0) - overlaps.reduce((sum, n) => sum + n, 0);
  const out = allocMono16Wav(sampleRate, frames);
  const samples = new Int16Array(out.buffer, out.byteOffset + WAV_HEADER_BYTES, frames);
  samples.set(chunks[0], 0);
  let writeEnd = chunks[0].length;
  for (let i = 1; i < chunks.length; i++) {
    const chunk = chunks[i];
    const overlap = overlaps[i - 1];
    const start = writeEnd - overlap;
    for (let j = 0; j < overlap; j++) {
      const mixed = Math.round(seamMix(samples[start + j], chunk[j], j, overlap));
      samples[start + j] = mixed > 32767 ? 32767 : mixed < -32768 ? -32768 : mixed;
    }
    samples.set(chunk.subarray(overlap), writeEnd);
    writeEnd = start + chunk.length;
  }
  return { data: out, sampleRate, frames };
}

/**
 * The 44-byte header of a mono 16-bit WAV. `frames: null` writes the streaming form: both sizes
 * 0xFFFFFFFF ("until the end of the stream"), for a file whose length is not known yet.
 */
export function mono16WavHeader(sampleRate: number, frames: number | null): Buffer {
  const header = Buffer.from(allocMono16Wav(sampleRate, 0));
  if (frames === null) {
    header.writeUInt32LE(0xffffffff, 4);
    header.writeUInt32LE(0xffffffff, 40);
  } else {
    header.writeUInt32LE(36 + frames * 2, 4);
    header.writeUInt32LE(frames * 2, 40);
  }
  return header;
}

/** The sample bytes of encodeWav (16-bit little-endian), without the header. */
export function mono16WavSamples(pcm: Pcm): Buffer {
  return encodeWav(pcm).subarray(WAV_HEADER_BYTES);
}

export { WAV_HEADER_BYTES };

/** Encodes mono 16-bit little-endian PCM. */
export function encodeWav(pcm: Pcm): Buffer {
  assertValidSampleRate(pcm.sampleRate);
  const out = allocMono16Wav(pcm.sampleRate, pcm.samples.length);

  const samples = pcm.samples;
  // An aligned Int16Array on a little-endian machine writes the same bytes as DataView.setInt16(…, true),
  // several times faster (a long progressive generation writes tens of MB here).
  const int16 =
    LITTLE_ENDIAN && (out.byteOffset + WAV_HEADER_BYTES) % 2 === 0 ? new Int16Array(out.buffer, out.byteOffset + WAV_HEADER_BYTES, samples.length) : null;
  const view = int16 ? null : new DataView(out.buffer, out.byteOffset, out.byteLength);
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i];
    const clamped = s > 1 ? 1 : s < -1 ? -1 : s || 0; // `|| 0` maps NaN to silence
    const value = Math.round(clamped * 32767);
    if (int16) int16[i] = value;
    else view!.setInt16(WAV_HEADER_BYTES + i * 2, value, true);
  }
  return out;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Mono 16-bit PCM, the common case (and what every provider here returns): read as an Int16Array. */
function decodeMono16(data: Buffer, layout: WavLayout, frames: number): Float32Array | null {
  if (!LITTLE_ENDIAN || layout.encoding !== 'pcm' || layout.bitsPerSample !== 16 || layout.channels !== 1) return null;
  const int16 = mono16Samples(data, layout, frames);
  const samples = new Float32Array(frames);
  for (let i = 0; i < frames; i++) samples[i] = int16[i] / 32768;
  return samples;
}

/**
 * Decodes PCM (8/16/24/32-bit integer) or IEEE float (32/64-bit) WAV with any channel count,
 * downmixed to mono. A truncated data chunk is decoded as far as it goes; use probeWav to reject it.
 */
export function decodeWav(data: Buffer): Pcm {
  let layout: WavLayout;
  try {
    layout = parseWavLayout(data);
  } catch (error) {
    if (error instanceof WavStructureError) throw new AudioDecodeError('wav', error.message);
    throw error;
  }
  const available = Math.min(layout.declaredDataBytes, data.length - layout.dataOffset);
  const frames = Math.floor(available / layout.blockAlign);
  const fast = decodeMono16(data, layout, frames);
  if (fast) return { sampleRate: layout.sampleRate, samples: fast };
  const readSample = sampleReader(layout);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const bytesPerSample = layout.bitsPerSample / 8;
  const samples = new Float32Array(frames);

  for (let frame = 0; frame < frames; frame++) {
    const frameOffset = layout.dataOffset + frame * layout.blockAlign;
    let sum = 0;
    for (let channel = 0; channel < layout.channels; channel++) {
      sum += readSample(view, frameOffset + channel * bytesPerSample);
    }
    const mono = sum / layout.channels;
    // Float WAVs may legitimately exceed full scale; keep the Pcm [-1, 1] invariant.
    samples[frame] = mono > 1 ? 1 : mono < -1 ? -1 : mono || 0;
  }
  return { sampleRate: layout.sampleRate, samples };
}

export function probeWav(data: Buffer): ProbeResult {
  let layout: WavLayout;
  try {
    layout = parseWavLayout(data);
  } catch (error) {
    if (error instanceof WavStructureError) return { ok: false, reason: error.message };
    throw error;
  }
  const present = data.length - layout.dataOffset;
  if (layout.declaredDataBytes > present) {
    return {
      ok: false,
      reason: `truncated: data chunk declares ${layout.declaredDataBytes} bytes but only ${present} are present`,
    };
  }
  if (layout.declaredDataBytes % layout.blockAlign !== 0) {
    return { ok: false, reason: `data chunk length ${layout.declaredDataBytes} is not a multiple of the ${layout.blockAlign}-byte frame size` };
  }
  return { ok: true, durationSeconds: layout.declaredDataBytes / layout.blockAlign / layout.sampleRate };
}

function parseWavLayout(data: Buffer): WavLayout {
  if (data.length === 0) throw new WavStructureError('empty input');
  if (data.length < 12) throw new WavStructureError('too short for a RIFF/WAVE header');
  if (data.toString('ascii', 0, 4) !== 'RIFF' || data.toString('ascii', 8, 12) !== 'WAVE') {
    throw new WavStructureError('missing RIFF/WAVE header');
  }

  let format: Omit<WavLayout, 'dataOffset' | 'declaredDataBytes'> | undefined;
  let offset = 12;
  while (offset + 8 <= data.length) {
    const chunkId = data.toString('ascii', offset, offset + 4);
    const chunkSize = data.readUInt32LE(offset + 4);
    const bodyOffset = offset + 8;

    if (chunkId === 'data') {
      if (!format) throw new WavStructureError('data chunk appears before the fmt chunk');
      return { ...format, dataOffset: bodyOffset, declaredDataBytes: chunkSize };
    }
    if (bodyOffset + chunkSize > data.length) {
      throw new WavStructureError(`truncated: "${chunkId}" chunk declares ${chunkSize} bytes past the end of the file`);
    }
    if (chunkId === 'fmt ') format = parseFmtChunk(data.subarray(bodyOffset, bodyOffset + chunkSize));
    offset = bodyOffset + chunkSize + (chunkSize % 2); // RIFF chunks are padded to even sizes
  }
  throw new WavStructureError(format ? 'no data chunk found' : 'no fmt chunk found');
}

function parseFmtChunk(fmt: Buffer): Omit<WavLayout, 'dataOffset' | 'declaredDataBytes'> {
  if (fmt.length < 16) throw new WavStructureError('fmt chunk is too short');
  let formatCode = fmt.readUInt16LE(0);
  const channels = fmt.readUInt16LE(2);
  const sampleRate = fmt.readUInt32LE(4);
  const blockAlign = fmt.readUInt16LE(12);
  const bitsPerSample = fmt.readUInt16LE(14);

  if (formatCode === FORMAT_EXTENSIBLE) {
    // WAVE_FORMAT_EXTENSIBLE keeps the real format code in the first two bytes of the SubFormat GUID.
    if (fmt.length < 26) throw new WavStructureError('extensible fmt chunk is too short');
    formatCode = fmt.readUInt16LE(24);
  }

  let encoding: 'pcm' | 'float';
  if (formatCode === FORMAT_PCM && [8, 16, 24, 32].includes(bitsPerSample)) encoding = 'pcm';
  else if (formatCode === FORMAT_IEEE_FLOAT && (bitsPerSample === 32 || bitsPerSample === 64)) encoding = 'float';
  else throw new WavStructureError(`unsupported WAV encoding (format 0x${formatCode.toString(16)}, ${bitsPerSample}-bit)`);

  if (channels < 1) throw new WavStructureError('fmt chunk declares zero channels');
  if (sampleRate < 1) throw new WavStructureError('fmt chunk declares a zero sample rate');
  if (blockAlign !== (channels * bitsPerSample) / 8) {
    throw new WavStructureError(`inconsistent block align ${blockAlign} for ${channels} x ${bitsPerSample}-bit`);
  }
  return { encoding, channels, sampleRate, bitsPerSample, blockAlign };
}

function sampleReader(layout: WavLayout): (view: DataView, offset: number) => number {
  if (layout.encoding === 'float') {
    return layout.bitsPerSample === 32 ? (view, offset) => view.getFloat32(offset, true) : (view, offset) => view.getFloat64(offset, true);
  }
  switch (layout.bitsPerSample) {
    case 8:
      return (view, offset) => (view.getUint8(offset) - 128) / 128; // 8-bit WAV is unsigned
    case 16:
      return (view, offset) => view.getInt16(offset, true) / 32768;
    case 24:
      return (view, offset) => {
        const value = view.getUint8(offset) | (view.getUint8(offset + 1) << 8) | (view.getInt8(offset + 2) << 16);
        return value / 8388608;
      };
    default:
      return (view, offset) => view.getInt32(offset, true) / 2147483648;
  }
}
