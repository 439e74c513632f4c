import { probe, type AudioFormat } from '../audio';
import { parseMpegFrameHeader } from '../audio/mpeg';
import { UnusableAudioError } from './http-client';

/** Sizes streaming encoders write when the length is not known yet (OpenAI: 0xFFFFFFFF). */
const UNKNOWN_LENGTH_MARKERS = new Set([0, 0xffffffff, 0x7fffffff]);

/**
 * Vendors stream WAV with a placeholder data length because they write the header before the
 * audio exists. Patch the RIFF and data sizes to what actually arrived; a header that declares a
 * real length is left alone, so genuine truncation is still caught by the probe.
 */
export function repairStreamingWavHeader(data: Buffer): Buffer {
  if (data.length < 12 || data.toString('ascii', 0, 4) !== 'RIFF' || data.toString('ascii', 8, 12) !== 'WAVE') return data;
  let blockAlign = 0;
  let offset = 12;
  while (offset + 8 <= data.length) {
    const id = data.toString('ascii', offset, offset + 4);
    const size = data.readUInt32LE(offset + 4);
    if (id === 'data') {
      if (!UNKNOWN_LENGTH_MARKERS.has(size) || blockAlign === 0) return data;
      const present = data.length - (offset + 8);
      const whole = present - (present % blockAlign);
      if (whole === 0) return data;
      const fixed = Buffer.from(data.subarray(0, offset + 8 + whole));
      fixed.writeUInt32LE(whole, offset + 4);
      fixed.writeUInt32LE(fixed.length - 8, 4);
      return fixed;
    }
    if (id === 'fmt ' && offset + 8 + 14 <= data.length) blockAlign = data.readUInt16LE(offset + 8 + 12);
    offset += 8 + size + (size % 2);
  }
  return data;
}

/** Returns the audio when it is structurally sound in `container`; otherwise fails the attempt. */
export function requireAudio(data: Buffer, container: AudioFormat): Buffer {
  const audio = container === 'wav' ? repairStreamingWavHeader(data) : data;
  const checked = probe(audio, container);
  if (!checked.ok) throw new UnusableAudioError(`not valid ${container}: ${checked.reason}`);
  if (checked.durationSeconds <= 0) throw new UnusableAudioError(`${container} audio contains no samples`);
  return audio;
}

/**
 * The start of a streamed body (HEAD_CHECK_BYTES, or all of a shorter body), checked before any of
 * it is handed on: the container's signature, so an error page or empty answer with a 2xx status is
 * retried instead of streamed. The rest is checked as it is used and, at the end, as requireAudio.
 */
export function requireAudioHead(head: Buffer, container: AudioFormat): void {
  const ok =
    container === 'wav'
      ? head.length >= 12 && head.toString('ascii', 0, 4) === 'RIFF' && head.toString('ascii', 8, 12) === 'WAVE'
      : container === 'ogg'
        ? head.length >= 4 && head.toString('ascii', 0, 4) === 'OggS'
        : head.length >= 4 && (head.toString('ascii', 0, 3) === 'ID3' || parseMpegFrameHeader(head, 0) !== undefined);
  if (!ok) throw new UnusableAudioError(`not valid ${container}: the body does not start like ${container} audio`);
}
