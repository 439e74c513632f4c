import { ConfigError, parseConfig } from '../../gateway/config';
import { createProviders } from '../../domain/tts/providers/registry';
import { DEFAULT_RESILIENCE } from '../../domain/tts/providers/resilience';
import { providerBBody } from '../../domain/tts/providers/provider-b';

/** Provider settings from the environment reach the adapters; bad values stop start-up naming the variable. */
const settingsOf = (provider: unknown) => ((provider as any).settings ?? {}) as { resilience?: Record<string, number>; voiceIds?: Record<string, string> };

test('vendor resilience settings apply to every real vendor; unset ones keep the defaults', () => {
  const config = parseConfig({
    PROVIDER_A_API_KEY: 'a',
    PROVIDER_B_API_KEY: 'b',
    PROVIDER_C_API_KEY: 'c',
    PROVIDER_C_REGION: 'westeurope',
    PROVIDER_TIMEOUT_MS: '2500',
    PROVIDER_MAX_ATTEMPTS: '2',
    PROVIDER_MAX_CONCURRENCY: '3',
    PROVIDER_FAILURE_THRESHOLD: '7',
    PROVIDER_COOLDOWN_MS: '5000',
  });
  const providers = createProviders({ mockLatencyMs: 0, ...config.providers });
  for (const id of ['provider_a', 'provider_b', 'provider_c'] as const) {
    expect(settingsOf(providers[id]).resilience).toEqual({
      ...DEFAULT_RESILIENCE,
      timeoutMs: 2500,
      maxAttempts: 2,
      maxConcurrency: 3,
      failureThreshold: 7,
      cooldownMs: 5000,
    });
  }
  const defaults = createProviders({ mockLatencyMs: 0, ...parseConfig({ PROVIDER_A_API_KEY: 'a' }).providers });
  expect(settingsOf(defaults.provider_a).resilience).toEqual(DEFAULT_RESILIENCE);
});

test('PROVIDER_B_VOICE_IDS maps the catalogue voice names to the vendor ids sent upstream', () => {
  const config = parseConfig({ PROVIDER_B_API_KEY: 'b', PROVIDER_B_VOICE_IDS: '{"barbershop-man":"a0e99841-438c-4a64-b679-ae501e7d6091"}' });
  const providers = createProviders({ mockLatencyMs: 0, ...config.providers });
  const voiceIds = settingsOf(providers.provider_b).voiceIds;
  expect(voiceIds).toEqual({ 'barbershop-man': 'a0e99841-438c-4a64-b679-ae501e7d6091' });
  const body: any = providerBBody({ text: 'Hi.', voice: 'barbershop-man', speed: 1, quality: 'standard', language: 'en-US', format: 'mp3' } as any, voiceIds);
  expect(body.voice.id).toBe('a0e99841-438c-4a64-b679-ae501e7d6091');
});

test.each([
  ['PROVIDER_TIMEOUT_MS', '10'],
  ['PROVIDER_MAX_ATTEMPTS', '0'],
  ['PROVIDER_MAX_CONCURRENCY', 'many'],
  ['PROVIDER_COOLDOWN_MS', '-1'],
  ['PROVIDER_B_VOICE_IDS', '{"voice": 42}'],
  ['PROVIDER_B_VOICE_IDS', 'not json'],
])('%s=%s stops start-up with a message naming it', (name, value) => {
  expect(() => parseConfig({ [name]: value })).toThrow(ConfigError);
  expect(() => parseConfig({ [name]: value })).toThrow(name);
});
