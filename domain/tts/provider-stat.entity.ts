import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/** Running counters per provider; updated with atomic SQL increments so concurrent requests never lose a count. */
@Entity({ tableName: 'provider_stats' })
export class ProviderStat {
  @PrimaryKey({ type: 'string', length: 20 })
  provider!: string;

  @Property({ type: 'bigint', default: 0 })
  requests: number = 0;

  @Property({ type: 'bigint', default: 0 })
  charactersProcessed: number = 0;

  @Property({ type: 'double', default: 0 })
  totalCost: number = 0;

  @Property({ type: 'double', default: 0 })
  totalLatencyMs: number = 0;

  @Property({ type: 'bigint', default: 0 })
  errors: number = 0;
}
