export type AudioFormat = 'mp3' | 'wav' | 'ogg';

export const AUDIO_FORMATS: readonly AudioFormat[] = ['mp3', 'wav', 'ogg'];

export type ProbeResult = { ok: true; durationSeconds: number } | { ok: false; reason: string };

/** Thrown when bytes cannot be decoded as the claimed format (corrupt, truncated beyond use, unsupported). */
export class AudioDecodeError extends Error {
  override readonly name = 'AudioDecodeError';

  constructor(
    readonly format: AudioFormat,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`Cannot decode ${format}: ${message}`, options);
  }
}
