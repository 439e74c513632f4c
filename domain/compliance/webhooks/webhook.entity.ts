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

  /** The origin posted to (`receiverOf(url)`): deliveries are scheduled fairly per receiver. */
  @Property({ type: 'string', length: 300, nullable: true })
  receiver?: string | null;

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

  /** Rows written before migration 20261128060000 only; the payload is the event's (`WebhookEvent`). */
  @Property({ type: 'json', nullable: true })
  payload?: Record<string, unknown> | null;

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

/**
 * The outbox entry of one event: its payload once, and which subscribed webhooks it skips. The delivery worker
 * expands it into `webhook_deliveries` rows in pages (SQL, after the change committed), so the
 * change's transaction and the gateway's heap hold one payload per event, not one per webhook.
 */
@Entity({ tableName: 'webhook_events' })
export class WebhookEvent {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 60 })
  type!: string;

  @Property({ type: 'json' })
  payload!: Record<string, unknown>;

  /**
   * Subscribed webhooks it does not go to (their owner may not read it). It goes to every other
   * active webhook subscribed to its type and registered by the time it happened: a list of those
   * would make every event's row as large as the fan-out.
   */
  @Property({ type: 'json' })
  excluded!: string[];

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = clock.now();

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  expandedAt?: Date | null;
}
