import type { EntityManager } from '@mikro-orm/postgresql';
import { actorOf, type AuditEntityType, type AuditTrail } from '../audit/audit-trail.service';
import type { DomainContext } from '../context';
import { makeEvent, type DomainEvent } from '../events/bus';
import { RowBatch } from '../database/row-batch';
import type { ActivityService } from './activity/activity.service';
import type { ComplianceEventPublisher, ComplianceEventType } from './events';
import type { ComplianceStatusService } from './status/compliance-status.service';

/** What a change works with: its transaction, and how it says what it did. */
export interface Change {
  readonly tx: EntityManager;
  /** One trail entry for a changed entity (the fields that differ, `updatedAt` aside), in the change's transaction. */
  audit(entityType: AuditEntityType, action: string, entityId: string, before: object | null, after: object): void;
  /** Stages an event: its webhook deliveries commit with the change, live subscribers hear it after the commit. */
  emit(type: ComplianceEventType, data: Record<string, unknown>): Promise<void>;
  /** The activity feed's line (and its `user.activity` event). */
  log(type: string, description: string, subjectId: string): Promise<void>;
}

export interface ChangeRunnerDeps {
  events: ComplianceEventPublisher;
  activity: ActivityService;
  status: ComplianceStatusService;
  auditTrail: AuditTrail;
}

/**
 * Every compliance mutation runs here, so each one states only its own change. The runner owns the
 * sequence around it: one transaction; the compliance figures without and with the change (one read
 * once its writes are made); history snapshots for what moved and `compliance.score_changed` for
 * each framework whose score or status moved, staged after the change's own events; and publishing
 * to live subscribers only once the transaction has committed (a change that fails publishes nothing).
 */
export class ChangeRunner {
  constructor(private readonly deps: ChangeRunnerDeps) {}

  async run<T>(ctx: DomainContext, work: (change: Change) => Promise<T>): Promise<T> {
    // The change's tally rows are told apart by the top transaction's id (`measureChange`); inside a
    // savepoint they would carry another id and the change would count as if made by someone else.
    if (ctx.em.isInTransaction()) throw new Error('A compliance change runs in a transaction of its own, never inside another one');
    const { events, activity, status, auditTrail } = this.deps;
    const staged: DomainEvent[] = [];
    const result = await ctx.em.transactional(async (em) => {
      const tx = em as EntityManager;
      // What a change appends (audit entries, activity, history snapshots, webhook deliveries) is
      // inserted in one statement at the end; the change's own entities go through the unit of work.
      const rows = new RowBatch();
      const change: Change = {
        tx,
        audit: (entityType, action, entityId, previous, next) => {
          auditTrail.recordChangeInto(rows, tx, actorOf(ctx), { action, entityType, entityId }, previous as Record<string, unknown> | null, next as Record<string, unknown>);
        },
        emit: async (type, data) => {
          staged.push(makeEvent(type, data));
        },
        log: async (type, description, subjectId) => {
          staged.push(activity.recordInto(rows, ctx, type, description, subjectId));
        },
      };
      const out = await work(change);
      // Nothing staged means nothing changed (every change says what it did): the figures cannot have moved.
      if (staged.length) {
        // The webhook subscribers' version is read with the tally (the subscribers themselves only when it moved).
        const probe = events.versionProbe();
        staged.push(...(await status.changesInto(rows, tx, probe && { sql: probe.sql, seen: (v) => probe.seen(tx, v) })));
        // Deliveries in the order the events were staged: the change's own, then the score changes.
        await events.stageInto(rows, tx, staged);
      }
      await rows.insert(tx);
      return out;
    });
    await events.publish(staged);
    return result;
  }
}
