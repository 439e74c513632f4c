import type { EntityManager } from '@mikro-orm/postgresql';
import { makeEvent, type DomainEvent, type EventBus } from '../events/bus';
import type { RowSink } from '../database/row-batch';

/** The bus channel every compliance event travels on. */
export const COMPLIANCE_CHANNEL = 'compliance';

/** Dotted event types (webhook `type`); each maps to one of the five live event types of the dashboard. */
export const COMPLIANCE_EVENT_TYPES = [
  'requirement.created',
  'requirement.updated',
  'requirement.deleted',
  'compliance.score_changed',
  'validation.completed',
  'finding.created',
  'finding.updated',
  'report.completed',
  'user.activity',
  'system.alert',
] as const;
export type ComplianceEventType = (typeof COMPLIANCE_EVENT_TYPES)[number];

export const WS_EVENT_TYPES = ['requirement_updated', 'compliance_changed', 'validation_completed', 'user_activity', 'system_alert'] as const;
export type WsEventType = (typeof WS_EVENT_TYPES)[number];

export const WS_EVENT_OF: Record<ComplianceEventType, WsEventType> = {
  'requirement.created': 'requirement_updated',
  'requirement.updated': 'requirement_updated',
  'requirement.deleted': 'requirement_updated',
  'compliance.score_changed': 'compliance_changed',
  'validation.completed': 'validation_completed',
  'finding.created': 'compliance_changed',
  'finding.updated': 'compliance_changed',
  'report.completed': 'user_activity',
  'user.activity': 'user_activity',
  'system.alert': 'system_alert',
};

/** Persists webhook deliveries for an event inside the caller's unit of work (the outbox). */
export interface OutboxWriter {
  enqueue(em: EntityManager, event: DomainEvent): Promise<void>;
  /** `enqueue`, with the rows handed to `sink` (the caller inserts them in `em`'s transaction). */
  enqueueInto?(sink: RowSink, em: EntityManager, event: DomainEvent): Promise<void>;
  /** A scalar query telling whether what `enqueue` reads has moved; read in the change's transaction, then handed to `atVersion`. */
  readonly versionQuery?: string;
  atVersion?(em: EntityManager, version: unknown): void;
}

/**
 * Compliance events are staged inside the transaction that makes the change (so the webhook
 * outbox commits or rolls back with it) and published to live subscribers only after commit.
 *
 *   const staged = await em.transactional(async (tx) => { …; return [await events.stage(tx, 'requirement.updated', view)]; });
 *   await events.publish(staged);
 */
export class ComplianceEventPublisher {
  private outbox?: OutboxWriter;

  constructor(private readonly bus: EventBus) {}

  setOutbox(outbox: OutboxWriter) {
    this.outbox = outbox;
  }

  async stage(em: EntityManager, type: ComplianceEventType, data: Record<string, unknown>): Promise<DomainEvent> {
    const event = makeEvent(type, data);
    await this.outbox?.enqueue(em, event);
    return event;
  }

  /**
   * Stages events made beforehand (`makeEvent`), in order, with their webhook deliveries handed to
   * `sink` (inserted by the caller in `em`'s transaction, before it commits).
   */
  async stageInto(sink: RowSink, em: EntityManager, events: readonly DomainEvent[]): Promise<void> {
    const outbox = this.outbox;
    if (!outbox) return;
    for (const event of events) {
      if (outbox.enqueueInto) await outbox.enqueueInto(sink, em, event);
      else await outbox.enqueue(em, event);
    }
  }

  /**
   * What staging reads (the webhook subscribers) has a version a change reads in its transaction
   * beside a statement it sends anyway (the tally read): `sql`, then `seen(em, value)`.
   */
  versionProbe(): { sql: string; seen: (em: EntityManager, value: unknown) => void } | undefined {
    const outbox = this.outbox;
    if (!outbox?.versionQuery || !outbox.atVersion) return undefined;
    return { sql: outbox.versionQuery, seen: (em, value) => outbox.atVersion!(em, value) };
  }

  async publish(events: DomainEvent[]): Promise<void> {
    for (const e of events) await this.bus.publish(COMPLIANCE_CHANNEL, e).catch(() => undefined);
  }
}
