import type { CircuitState } from './resilience';
import type { AudioFormat, ProviderId, Quality } from '../catalogue';

/** One upstream call: text no longer than the provider's `maxCharsPerCall`. */
export interface SynthesisRequest {
  text: string;
  voice: string;
  speed: number;
  quality: Quality;
  language: string;
  format: AudioFormat;
  emotion?: { positivity?: number; energy?: number };
  pitch?: number;
  /** How to speak, for providers that take it (provider_a). */
  instructions?: string;
}

/** Audio as the vendor sends it: the bytes in order as they arrive, and the whole once it has been checked. */
export interface SpeechStream extends AsyncIterable<Buffer> {
  /** What synthesize() would return: every byte, accepted (and repaired where the adapter repairs). */
  readonly whole: Promise<Buffer>;
}

export interface SpeechProvider {
  readonly id: ProviderId;
  isConfigured(): boolean;
  /** Returns audio encoded in `request.format`; throws a DomainError with the provider's code on failure. */
  synthesize(request: SynthesisRequest, signal?: AbortSignal): Promise<Buffer>;
  /**
   * The same audio, handed on as the vendor sends it (vendors that stream their bodies). Retries
   * apply until the first byte has been taken; a failure after it ends the iteration with the error.
   * The bytes are the vendor's own, not repaired (a WAV header may carry unknown-length sizes).
   */
  synthesizeStream?(request: SynthesisRequest, signal?: AbortSignal): SpeechStream;
  /** The upstream circuit breaker's state (providers that call a vendor over HTTP). */
  circuitState?(): CircuitState;
}

/** A stream of audio that comes whole at the end (made here, not streamed by the vendor). */
export function wholeAsStream(whole: Promise<Buffer>): SpeechStream {
  whole.catch(() => undefined); // the consumer may only iterate
  return {
    whole,
    async *[Symbol.asyncIterator]() {
      yield await whole;
    },
  };
}
