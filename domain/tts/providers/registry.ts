import type { ProviderId } from '../catalogue';
import { MockProvider } from './mock';
import type { SpeechProvider } from './provider';
import { UnconfiguredProvider } from './unconfigured';

export interface ProviderSettings {
  mockLatencyMs: number;
  provider_a: { apiKey?: string; baseUrl?: string };
  provider_b: { apiKey?: string; baseUrl?: string };
  provider_c: { apiKey?: string; region?: string; baseUrl?: string };
}

/** Builds one adapter per provider; vendors without credentials answer PROVIDER_NOT_CONFIGURED. */
export function createProviders(s: ProviderSettings): Record<ProviderId, SpeechProvider> {
  return {
    provider_a: new UnconfiguredProvider('provider_a', 'PROVIDER_A_API_KEY'),
    provider_b: new UnconfiguredProvider('provider_b', 'PROVIDER_B_API_KEY'),
    provider_c: new UnconfiguredProvider('provider_c', 'PROVIDER_C_API_KEY'),
    mock: new MockProvider(s.mockLatencyMs),
  };
}
