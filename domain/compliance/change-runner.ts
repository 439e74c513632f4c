import type { EntityManager } from '@mikro-orm/postgresql';
import { actorOf, type AuditEntityType, type AuditTrail } from '../audit/audit-trail.service';
import type { DomainContext } from '../context';
import { makeEvent, type DomainEvent } from '../events/bus';
import { RowBatch, type ColumnRow, type RowSink } from '../database/row-batch';
import { Creations, type PreparedCreation } from './creations';
import type { ActivityService } from './activity/activity.service';
import type { ComplianceEventPublisher, ComplianceEventType } from './events';
import { tallyChangeSql, type ComplianceStatusService, type TallyChangeRow } from './status/compliance-status.service';
import type { TallyRow } from './status/measurement';
import { tallyDeltaOf } from './status/tally-delta';
import type { ComplianceUpkeep } from './status/compliance-upkeep';

/** How a change says what it did: trail entries, events, activity lines. */
export interface ChangeStatement {
  /** One trail entry for a changed entity (the fields that differ, `updatedAt` aside). */
  audit(entityType: AuditEntityType, action: string, entityId: string, before: object | null, after: object): void;
  /** Stages an event: its webhook deliveries commit with the change, live subscribers hear it after the commit. */
  emit(type: ComplianceEventType, data: Record<string, unknown>): void;
  /** The activity feed's line (and its `user.activity` event). */
  log(type: string, description: string, subjectId: string): void;
}

/** What a change works with: its transaction, and how it says what it did. */
export interface Change extends ChangeStatement {
  readonly tx: EntityManager;
}

/**
 * What a creation works with before its transaction opens: the new rows of its own tables (written
 * as plain inserts, in one statement, first thing in the transaction, so the figures read after
 * them count them) and how it says what it did. Nothing here reads or writes the database.
 */
export interface NewRows extends ChangeStatement {
  /** A new row of `table`, columns as the table names them (JSON columns already serialised). */
  insert(table: string, row: ColumnRow): void;
}

export interface ChangeRunnerDeps {
  events: ComplianceEventPublisher;
  activity: ActivityService;
  status: ComplianceStatusService;
  /** Told of every measured change that committed, to keep the tally small. */
  upkeep: Pick<ComplianceUpkeep, 'changeCommitted'>;
  auditTrail: AuditTrail;
}

/**
 * Every compliance mutation runs here, so each one states only its own change. The runner owns the
 * sequence around it: one transaction; the compliance figures without and with the change (one read
 * once its writes are made, or for a creation in the statement that makes them); history snapshots for what moved and `compliance.score_changed` for
 * each framework whose score or status moved, staged after the change's own events; and publishing
 * to live subscribers only once the transaction has committed (a change that fails publishes nothing).
 */
export class ChangeRunner {
  constructor(private readonly deps: ChangeRunnerDeps) {}

  async run<T>(ctx: DomainContext, work: (change: Change) => Promise<T>): Promise<T> {
    const { activity, auditTrail } = this.deps;
    const staged: DomainEvent[] = [];
    // What a change appends (audit entries, activity, history snapshots, webhook deliveries) is
    // inserted in one statement at the end; the change's own entities go through the unit of work.
    const rows = new RowBatch();
    return this.commit(ctx, staged, rows, async (tx) =>
      work({
        tx,
        audit: (entityType, action, entityId, previous, next) => {
          auditTrail.recordChangeInto(
            rows,
            tx,
            actorOf(ctx),
            { action, entityType, entityId },
            previous as Record<string, unknown> | null,
            next as Record<string, unknown>,
          );
        },
        emit: (type, data) => {
          staged.push(makeEvent(type, data));
        },
        log: (type, description, subjectId) => {
          staged.push(activity.recordInto(rows, ctx, type, description, subjectId));
        },
      }),
    );
  }

  /**
   * A change that only adds rows and reads nothing first (a creation). `prepare` states all of it
   * before the transaction opens: ids, views, trail entries with their hashes, events and activity
   * are made while no database session is held (the embedded database has one, and a transaction
   * holds it from begin to commit). Creations then commit in groups (creations.ts): alone, at once;
   * under concurrent writes, those that arrived meanwhile together in the next transaction.
   */
  async create<T>(ctx: DomainContext, prepare: (change: NewRows) => T): Promise<T> {
    assertOwnTransaction(ctx);
    const { activity, auditTrail } = this.deps;
    const creation: PreparedCreation = { em: ctx.em, rows: [], staged: [], added: [], audited: false };
    const actor = actorOf(ctx);
    const sink: RowSink = { add: (table, row) => creation.rows.push([table, row]) };
    const out = prepare({
      insert: (table, row) => {
        creation.rows.push([table, row]);
        creation.added.push(...tallyDeltaOf(table, row));
      },
      audit: (entityType, action, entityId, previous, next) => {
        creation.audited =
          auditTrail.changeInto(sink, actor, { action, entityType, entityId }, previous as Record<string, unknown> | null, next as Record<string, unknown>) ||
          creation.audited;
      },
      emit: (type, data) => {
        creation.staged.push(makeEvent(type, data));
      },
      log: (type, description, subjectId) => {
        creation.staged.push(activity.recordInto(sink, ctx, type, description, subjectId));
      },
    });
    await this.creations.submit(creation);
    return out;
  }

  private readonly creations = new Creations((group) => this.commitCreations(group));

  /**
   * One transaction for a group of creations, four statements in two round trips whatever its size
   * (docs/decisions.md, "A create is four statements"): `BEGIN` with one statement that inserts the
   * new rows, the trail entries and the activity lines and reads the tally as it was before them (the
   * figures after are that plus what the new rows add, `tallyDeltaOf`), then one insert of the
   * history snapshots and webhook events with the `COMMIT`. The trail entries are sealed later, in
   * a batched pass shared with other commits (audit-sealer.ts).
   */
  private async commitCreations(group: readonly PreparedCreation[]): Promise<void> {
    const { auditTrail, events, status } = this.deps;
    const first = new RowBatch();
    const staged: DomainEvent[] = [];
    const added: TallyRow[] = [];
    for (const c of group) {
      for (const [table, row] of c.rows) first.add(table, row);
      staged.push(...c.staged);
      added.push(...c.added);
    }
    const rows = new RowBatch();
    // The transaction is opened on the connection, not through `em.transactional`: that would fork the
    // request's EntityManager again and flush a unit of work a creation never uses (issue #36: ~5 % of
    // a create's CPU). The first creation's fork is bound to the transaction while it runs, so whatever
    // still reads through the ORM (the webhook subscribers, when their version moved) reads in it.
    const tx = group[0].em;
    await tx.getConnection().transactional(async (trx) => {
      tx.setTransactionContext(trx);
      try {
        // Nothing staged means nothing changed (every change says what it did): the figures cannot have moved.
        if (!staged.length) return await first.insert(tx);
        const probe = events.versionProbe();
        const read = await first.insertThenRead<TallyChangeRow>(tx, tallyChangeSql(probe?.sql));
        staged.push(...status.creationChangesInto(rows, read, added, probe && ((v) => probe.seen(tx, v))));
        await events.stageInto(rows, tx, staged);
        await rows.insert(tx);
      } finally {
        tx.resetTransactionContext();
      }
    });
    // The trail rows are visible now: a sealing pass soon, shared with the other commits until then.
    if (group.some((c) => c.audited)) auditTrail.sealSoon();
    for (const c of group) if (c.staged.length) this.deps.upkeep.changeCommitted();
    await events.publish(staged);
  }

  /** One transaction around `work`, then the figures, the appended rows, the commit and the publishing. */
  private async commit<T>(ctx: DomainContext, staged: DomainEvent[], rows: RowBatch, work: (tx: EntityManager) => Promise<T>): Promise<T> {
    assertOwnTransaction(ctx);
    const { events, status } = this.deps;
    const result = await ctx.em.transactional(async (em) => {
      const tx = em as EntityManager;
      const out = await work(tx);
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
    // A change that staged something was measured against the tally (above): under a stream of writes the
    // tally is checked for compaction by their number, not only by the clock.
    if (staged.length) this.deps.upkeep.changeCommitted();
    await events.publish(staged);
    return result;
  }
}

/**
 * The change's tally rows are told apart by the top transaction's id (`measureChange`); inside a
 * savepoint they would carry another id and the change would count as if made by someone else.
 */
function assertOwnTransaction(ctx: DomainContext): void {
  if (ctx.em.isInTransaction()) throw new Error('A compliance change runs in a transaction of its own, never inside another one');
}
