import type { ProviderId, Quality } from './catalogue';

/** USD per million characters, by provider and quality (`default` covers the rest). */
export type PriceTable = Record<string, Record<string, number>>;

const DEFAULT_PRICES: PriceTable = {
  provider_a: { standard: 15, high: 30, default: 15 },
  provider_b: { default: 40 },
  provider_c: { default: 16 },
  mock: { default: 0 },
};

export interface CostEstimate {
  cost: number;
  characterCount: number;
  currency: 'USD';
  pricePerMillion: number;
}

export class Pricing {
  private readonly table: PriceTable;

  constructor(overrides: PriceTable = {}) {
    this.table = { ...DEFAULT_PRICES };
    for (const [provider, prices] of Object.entries(overrides)) {
      this.table[provider] = { ...(this.table[provider] ?? {}), ...prices };
    }
  }

  /** Characters are counted as Unicode code points, the unit vendors bill. */
  estimate(provider: ProviderId, quality: Quality, text: string): CostEstimate {
    const characterCount = [...text].length;
    const prices = this.table[provider] ?? {};
    const pricePerMillion = prices[quality] ?? prices.default ?? 0;
    const cost = Math.round(((characterCount * pricePerMillion) / 1_000_000) * 1e6) / 1e6;
    return { cost, characterCount, currency: 'USD', pricePerMillion };
  }
}
