// What speech offers: providers and whether each is set up, voices, languages, prices, and how the providers are doing.
import type { DomainContext } from '../context';
import { DomainError } from '../errors';
import type { TtsAccessPolicy } from './access';
import { PROVIDER_CATALOGUE, PROVIDER_IDS, isProviderId, type ProviderId } from './catalogue';
import type { Pricing } from './pricing';
import type { SpeechProvider } from './providers/provider';
import type { CircuitState } from './providers/resilience';
import { DEFAULT_FORMAT, DEFAULT_SPEED, resolveRequest } from './request';
import { speechModelList } from './speech-models';
import type { ProviderStatsRecorder } from './stats';

/** The provider a request without one goes to: the first vendor set up, else the built-in mock. */
export function defaultProviderOf(providers: Record<ProviderId, SpeechProvider>): ProviderId {
  return (['provider_a', 'provider_b', 'provider_c'] as ProviderId[]).find((p) => providers[p].isConfigured()) ?? 'mock';
}

export class SpeechCatalogue {
  constructor(
    private readonly deps: {
      access: TtsAccessPolicy;
      providers: Record<ProviderId, SpeechProvider>;
      defaultProvider: ProviderId;
      pricing: Pricing;
      stats: ProviderStatsRecorder;
    },
  ) {}

  /** Each provider's upstream circuit: closed, open or half-open (closed for those without one). */
  circuitStates(): Record<ProviderId, CircuitState> {
    return Object.fromEntries(PROVIDER_IDS.map((p) => [p, this.deps.providers[p].circuitState?.() ?? 'closed'])) as Record<ProviderId, CircuitState>;
  }

  async estimate(ctx: DomainContext, raw: unknown) {
    this.deps.access.require(ctx, 'tts:generate');
    const req = resolveRequest(raw, this.deps.defaultProvider);
    const e = this.deps.pricing.estimate(req.options.provider, req.options.quality, req.text);
    return { cost: e.cost, characterCount: e.characterCount, currency: e.currency, provider: req.options.provider, quality: req.options.quality };
  }

  listProviders(ctx: DomainContext) {
    this.deps.access.require(ctx, 'tts:read');
    return {
      providers: PROVIDER_IDS.map((id) => {
        const s = PROVIDER_CATALOGUE[id];
        return {
          name: id,
          displayName: s.displayName,
          configured: this.deps.providers[id].isConfigured(),
          voices: [...s.voices],
          languages: [...s.languages],
          formats: ['mp3', 'wav', 'ogg'],
          speed: { min: s.speed[0], max: s.speed[1] },
          qualities: [...s.qualities],
          default: id === this.deps.defaultProvider,
          // What a request that leaves an option out gets (resolveRequest), so clients can show it.
          defaults: { voice: s.voices[0], format: DEFAULT_FORMAT, quality: s.defaultQuality, speed: DEFAULT_SPEED, language: s.defaultLanguage },
        };
      }),
    };
  }

  private providerFilter(provider: unknown): ProviderId[] {
    if (provider === undefined || provider === null || provider === '') return [...PROVIDER_IDS];
    if (typeof provider !== 'string' || !isProviderId(provider)) {
      throw new DomainError('INVALID_PROVIDER', `Unknown provider '${String(provider).slice(0, 40)}'`, {
        details: { provider: String(provider).slice(0, 40), supportedProviders: PROVIDER_IDS },
        fields: [{ field: 'provider', message: `must be one of ${PROVIDER_IDS.join(', ')}` }],
      });
    }
    return [provider];
  }

  listVoices(ctx: DomainContext, provider?: unknown) {
    this.deps.access.require(ctx, 'tts:read');
    return { voices: this.providerFilter(provider).flatMap((p) => PROVIDER_CATALOGUE[p].voices) };
  }

  listLanguages(ctx: DomainContext, provider?: unknown) {
    this.deps.access.require(ctx, 'tts:read');
    const langs = new Set(this.providerFilter(provider).flatMap((p) => PROVIDER_CATALOGUE[p].languages));
    return { languages: [...langs] };
  }

  /** What OpenAI's `model` accepts (`GET /v1/models`), in OpenAI's list shape. */
  listModels(ctx: DomainContext) {
    this.deps.access.require(ctx, 'tts:read');
    return speechModelList();
  }

  async providerStats(ctx: DomainContext) {
    this.deps.access.require(ctx, 'tts:read');
    return { stats: await this.deps.stats.read(), latencyUnit: 'ms' };
  }
}
