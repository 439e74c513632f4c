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
}

export interface SpeechProvider {
  readonly id: ProviderId;
  isConfigured(): boolean;
  /** Returns audio encoded in `request.format`; throws a DomainError with the provider's code on failure. */
  synthesize(request: SynthesisRequest, signal?: AbortSignal): Promise<Buffer>;
  /** The upstream circuit breaker's state (providers that call a vendor over HTTP). */
  circuitState?(): CircuitState;
}
