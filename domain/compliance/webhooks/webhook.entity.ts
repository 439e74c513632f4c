import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';
import { clock } from '../../clock';

@Entity({ tableName: 'webhooks' })
export class Webhook {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'text' })
  url!: string;

  @Property({ type: 'json' })
  events!: string[];

  /** Kept readable: the HMAC needs it. Never returned after creation. */
  @Property({ type: 'string', length: 200 })
  secret!: string;

  @Property({ type: 'string', length: 40, nullable: true })
  ownerKeyId?: string | null;

  @Property({ type: 'boolean', default: true })
  active = true;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = clock.now();
}

/** `skipped`: not sent, and never will be (the owner key was revoked or expired, or may not read the event); `lastError` says why. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The outbox: written in the same transaction as the change it announces, sent afterwards. */
@Entity({ tableName: 'webhook_deliveries' })
@Index({ properties: ['status', 'nextAttemptAt'] })
export class WebhookDelivery {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Index()
  @Property({ type: 'string', length: 40 })
  webhookId!: string;

  /** The event id, sent as `webhook-id` so receivers can drop duplicates. */
  @Property({ type: 'string', length: 40 })
  eventId!: string;

  @Property({ type: 'string', length: 60 })
  type!: string;

  @Property({ type: 'json' })
  payload!: Record<string, unknown>;

  @Property({ type: 'string', length: 12, default: 'pending' })
  status: DeliveryStatus = 'pending';

  @Property({ type: 'integer', default: 0 })
  attempts = 0;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  nextAttemptAt: Date = clock.now();

  @Property({ type: 'string', length: 80, nullable: true })
  lockedBy?: string | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  lockedUntil?: Date | null;

  @Property({ type: 'integer', nullable: true })
  lastStatusCode?: number | null;

  @Property({ type: 'text', nullable: true })
  lastError?: string | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  deliveredAt?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = clock.now();
}
