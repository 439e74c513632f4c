import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';
import { clock } from '../clock';

export type Plan = 'standard' | 'premium' | 'enterprise';
export const PLANS: readonly Plan[] = ['standard', 'premium', 'enterprise'];

@Entity({ tableName: 'api_keys' })
export class ApiKey {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 200 })
  name!: string;

  /** sha256 of the secret; the secret itself is shown once and never stored. */
  @Index()
  @Property({ type: 'string', length: 64, unique: true })
  secretHash!: string;

  /** First characters of the secret, so an operator can recognise a key in a list. */
  @Property({ type: 'string', length: 16 })
  prefix!: string;

  @Property({ type: 'json' })
  permissions!: string[];

  @Property({ type: 'string', length: 20, default: 'standard' })
  plan: Plan = 'standard';

  @Property({ type: 'boolean', default: false })
  isAdmin = false;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  expiresAt?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  revokedAt?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  lastUsedAt?: Date | null;

  @Property({ type: 'string', length: 40, nullable: true })
  createdBy?: string | null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = clock.now();
}
