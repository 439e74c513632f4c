import type { ProviderId } from '../catalogue';
import { MockProvider } from './mock';
import type { SpeechProvider } from './provider';
import { ProviderA } from './provider-a';
import { ProviderB } from './provider-b';
import { ProviderC } from './provider-c';
import { resolveResilience, type ResilienceOptions } from './resilience';
import { UnconfiguredProvider } from './unconfigured';
import type { UpstreamReporting } from './http-client';
import type { AudioWorkerPool } from '../audio-workers';

export interface ProviderSettings {
  mockLatencyMs: number;
  /** Where the mock provider synthesises (off the event loop); in this thread when absent. */
  audioWorkers?: AudioWorkerPool;
  provider_a: { apiKey?: string; baseUrl?: string; resilience?: Partial<ResilienceOptions> };
  provider_b: { apiKey?: string; baseUrl?: string; voiceIds?: Record<string, string>; resilience?: Partial<ResilienceOptions> };
  provider_c: { apiKey?: string; region?: string; baseUrl?: string; resilience?: Partial<ResilienceOptions> };
  /** Timeouts, retries, circuit breaker and concurrency cap for every vendor; per-provider values win. */
  resilience?: Partial<ResilienceOptions>;
  /** Every configured secret (redacted from vendor text) and where failed calls are reported (the log). */
  reporting?: UpstreamReporting;
}

const DEFAULT_BASE_URL = {
  provider_a: 'https://api.openai.com',
  provider_b: 'https://api.cartesia.ai',
} as const;

/**
 * Builds one adapter per provider. A vendor is configured when its API key is set (provider_c also
 * needs a base URL or a region); otherwise it answers PROVIDER_NOT_CONFIGURED.
 */
export function createProviders(s: ProviderSettings): Record<ProviderId, SpeechProvider> {
  const a = s.provider_a;
  const b = s.provider_b;
  const c = s.provider_c;
  // Each vendor's text is scrubbed of every configured secret, not only its own key.
  const reporting: UpstreamReporting = {
    secrets: [a.apiKey, b.apiKey, c.apiKey, ...(s.reporting?.secrets ?? [])].filter((x): x is string => !!x),
    onFailure: s.reporting?.onFailure,
    policy: s.reporting?.policy,
  };
  const cBaseUrl = c.baseUrl ?? (c.region ? `https://${c.region}.tts.speech.microsoft.com` : undefined);
  return {
    provider_a: a.apiKey
      ? new ProviderA({
          ...reporting,
          apiKey: a.apiKey,
          baseUrl: a.baseUrl ?? DEFAULT_BASE_URL.provider_a,
          resilience: resolveResilience(s.resilience, a.resilience),
        })
      : new UnconfiguredProvider('provider_a', 'PROVIDER_A_API_KEY'),
    provider_b: b.apiKey
      ? new ProviderB({
          ...reporting,
          apiKey: b.apiKey,
          baseUrl: b.baseUrl ?? DEFAULT_BASE_URL.provider_b,
          voiceIds: b.voiceIds,
          resilience: resolveResilience(s.resilience, b.resilience),
        })
      : new UnconfiguredProvider('provider_b', 'PROVIDER_B_API_KEY'),
    provider_c:
      c.apiKey && cBaseUrl
        ? new ProviderC({ ...reporting, apiKey: c.apiKey, baseUrl: cBaseUrl, resilience: resolveResilience(s.resilience, c.resilience) })
        : new UnconfiguredProvider('provider_c', c.apiKey ? 'PROVIDER_C_REGION' : 'PROVIDER_C_API_KEY'),
    mock: new MockProvider(s.mockLatencyMs, s.audioWorkers),
  };
}
