// What speech reports for metrics: the gateway counts these, the domain knows nothing of Prometheus.
import type { ProviderId } from './catalogue';

/** Where a generation's audio came from: the hot tier, storage, or nowhere (a provider makes it). */
export type CacheTier = 'memory' | 'disk' | 'miss';

/** Every method must be cheap and must not throw. */
export interface TtsObserver {
  /** A generation that went to a provider, by its outcome. */
  generation(provider: ProviderId, outcome: 'success' | 'error'): void;
  /** One upstream call (one chunk), in seconds. */
  upstreamCall(provider: ProviderId, outcome: 'success' | 'error', seconds: number): void;
  /** A cached generation request (cache: true), by where it was answered from. */
  cacheLookup(tier: CacheTier): void;
}

export const NO_OBSERVER: TtsObserver = { generation() {}, upstreamCall() {}, cacheLookup() {} };
