import type { TransactionEventArgs } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { requirePermission, type Principal } from '../auth/principal';
import { newId } from '../ids';
import { parseInput } from '../validation';
import type { RowSink } from '../database/row-batch';
import { AuditEntry } from './audit-entry.entity';
import { changedFields, chainHashOf, contentHashOf, GENESIS_HASH } from './chain';
import { clock } from '../clock';

/** The kinds of record the trail covers. */
export const AUDIT_ENTITY_TYPES = ['requirement', 'finding', 'api_key', 'report', 'webhook'] as const;
export type AuditEntityType = (typeof AUDIT_ENTITY_TYPES)[number];

/** Who made a change: a key (its id and the principal's name then), or the system itself. */
export interface AuditActor {
  keyId: string | null;
  name: string;
  requestId?: string | null;
}

export const SYSTEM_ACTOR: AuditActor = { keyId: null, name: 'system' };

export function actorOf(ctx: { principal: Principal | null; requestId?: string }): AuditActor {
  return ctx.principal
    ? { keyId: ctx.principal.keyId, name: ctx.principal.name, requestId: ctx.requestId ?? null }
    : { keyId: null, name: 'anonymous', requestId: ctx.requestId ?? null };
}

export interface AuditSubject {
  /** `<entity>.<verb>`, e.g. `requirement.update`. */
  action: string;
  entityType: AuditEntityType;
  entityId: string;
}

export interface AuditEntryView {
  id: string;
  /** Position in the hash chain; null until the row is sealed. */
  seq: number | null;
  at: string;
  keyId: string | null;
  actor: string;
  action: string;
  entityType: string;
  entityId: string;
  requestId: string | null;
  changedFields: string[];
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  contentHash: string;
  previousHash: string | null;
  hash: string | null;
  sealed: boolean;
}

export const auditEntryView = (e: AuditEntry): AuditEntryView => ({
  id: e.id,
  seq: e.seq === null || e.seq === undefined ? null : Number(e.seq),
  at: e.at.toISOString(),
  keyId: e.keyId ?? null,
  actor: e.actor,
  action: e.action,
  entityType: e.entityType,
  entityId: e.entityId,
  requestId: e.requestId ?? null,
  changedFields: Object.keys(e.after ?? e.before ?? {}),
  before: e.before ?? null,
  after: e.after ?? null,
  contentHash: e.contentHash,
  previousHash: e.previousHash ?? null,
  hash: e.hash ?? null,
  sealed: e.seq !== null && e.seq !== undefined,
});

const instant = z.union([z.iso.datetime({ offset: true }), z.iso.date()]);

export const AuditTrailQuery = z
  .object({
    entity: z.enum(AUDIT_ENTITY_TYPES).optional(),
    id: z.string().min(1).max(60).optional(),
    key: z.string().min(1).max(40).optional(),
    action: z.string().min(1).max(60).optional(),
    from: instant.optional(),
    to: instant.optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
  })
  .refine((q) => !q.from || !q.to || startOf(q.from) <= endOf(q.to), { message: 'must not be before from', path: ['to'] });
export type AuditTrailQuery = z.input<typeof AuditTrailQuery>;

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const startOf = (s: string) => new Date(DATE_ONLY.test(s) ? `${s}T00:00:00.000Z` : s);
/** A date-only upper bound means the end of that day. */
const endOf = (s: string) => new Date(DATE_ONLY.test(s) ? `${s}T23:59:59.999Z` : s);

export type AuditProblem = 'content-altered' | 'hash-altered' | 'link-broken' | 'rows-missing';
export const AUDIT_PROBLEMS: readonly AuditProblem[] = ['content-altered', 'hash-altered', 'link-broken', 'rows-missing'];

export interface AuditVerification {
  /** True when every sealed row checks out and no unsealed row was altered. */
  intact: boolean;
  verifiedAt: string;
  rows: { total: number; sealed: number; unsealed: number };
  /** Rows written but not yet sealed into the chain (normally for milliseconds after their commit). */
  oldestUnsealedAt: string | null;
  /** The last sealed row: record its hash elsewhere to anchor everything before it. */
  head: { seq: number; hash: string; at: string } | null;
  firstBroken: { seq: number | null; id: string; problem: AuditProblem; message: string; expected: string; found: string } | null;
  problems: number;
}

interface TrailRow {
  id: string;
  seq: string | number | null;
  at: Date | string;
  key_id: string | null;
  actor: string;
  action: string;
  entity_type: string;
  entity_id: string;
  request_id: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  content_hash: string;
  previous_hash: string | null;
  hash: string | null;
}

const ROW_COLUMNS = 'id, seq, at, key_id, actor, action, entity_type, entity_id, request_id, before, after, content_hash, previous_hash, hash';

const contentOf = (r: TrailRow) =>
  contentHashOf({
    id: r.id,
    at: new Date(r.at),
    keyId: r.key_id,
    actor: r.actor,
    action: r.action,
    entityType: r.entity_type,
    entityId: r.entity_id,
    requestId: r.request_id,
    before: r.before,
    after: r.after,
  });

/** Rows sealed per transaction of the sealer. */
const SEAL_BATCH = 500;
const VERIFY_BATCH = 1000;
/** Cluster-wide: one sealer at a time across every instance on the database. */
const SEAL_LOCK = `hashtextextended('audit_trail.seal', 0)`;

export interface AuditTrailOptions {
  /** How often a sealer looks for rows left unsealed (a kick lost to a crash, a busy lock). */
  sweepMs?: number;
  onError?: (err: unknown) => void;
}

/**
 * The audit trail: every change to a record, with who, when and the values before and after.
 *
 * Writers only insert (in their own transaction, no shared row touched), so recording costs one
 * row per change and never makes writers wait on each other. Right after a commit that wrote
 * rows, a sealer chains them: under a cluster-wide advisory lock it gives each unsealed row, in
 * the order the commits became visible, the next `seq`, the previous row's hash and its own hash
 * SHA-256(seq : previousHash : contentHash). Verification recomputes all of it.
 */
export class AuditTrail {
  private readonly pendingCommits = new WeakSet<object>();
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private sweeper?: NodeJS.Timeout;
  private retry?: NodeJS.Timeout;

  constructor(
    private readonly rootEm: EntityManager,
    private readonly opts: AuditTrailOptions = {},
  ) {
    // Seal right after any commit that wrote trail rows.
    rootEm.getEventManager().registerSubscriber({
      afterTransactionCommit: (args: TransactionEventArgs) => {
        if (args.transaction && this.pendingCommits.has(args.transaction as object)) this.kick();
      },
    });
  }

  /**
   * Records one change, inside the transaction that makes it (so the entry commits or rolls back
   * with the change). `before`/`after` hold the changed fields only.
   */
  record(em: EntityManager, actor: AuditActor, subject: AuditSubject, before: Record<string, unknown> | null, after: Record<string, unknown> | null): void {
    const trx = em.getTransactionContext();
    if (!trx) throw new Error('audit entries are written inside the transaction of the change they record');
    const content = this.contentOf(actor, subject, before, after);
    em.create(AuditEntry, { ...content, seq: null, contentHash: contentHashOf(content), previousHash: null, hash: null });
    this.pendingCommits.add(trx as object);
  }

  /**
   * Records the fields that differ between two views of a record (nothing when none does), as a row
   * of `audit_trail` handed to `sink` (the caller inserts it in `em`'s transaction, before it
   * commits). A creation passes `before` null, a deletion `after` with what marks it deleted.
   */
  recordChangeInto(
    sink: RowSink,
    em: EntityManager,
    actor: AuditActor,
    subject: AuditSubject,
    before: Record<string, unknown> | null,
    after: Record<string, unknown> | null,
    ignore: readonly string[] = ['updatedAt'],
  ): boolean {
    if (!em.getTransactionContext()) throw new Error('audit entries are written inside the transaction of the change they record');
    if (!this.changeInto(sink, actor, subject, before, after, ignore)) return false;
    this.sealAfterCommit(em);
    return true;
  }

  /**
   * `recordChangeInto` without a transaction yet: the row is made (ids, time, content hash) and handed
   * to `sink`, for a change that states itself before its transaction opens. The caller inserts the
   * row in the change's transaction and calls `sealAfterCommit` there.
   */
  changeInto(
    sink: RowSink,
    actor: AuditActor,
    subject: AuditSubject,
    before: Record<string, unknown> | null,
    after: Record<string, unknown> | null,
    ignore: readonly string[] = ['updatedAt'],
  ): boolean {
    const diff = changedFields(before, after, before && after ? ignore : []);
    if (!diff.fields.length) return false;
    const c = this.contentOf(actor, subject, diff.before, diff.after);
    sink.add('audit_trail', {
      id: c.id,
      seq: null,
      at: c.at,
      key_id: c.keyId,
      actor: c.actor,
      action: c.action,
      entity_type: c.entityType,
      entity_id: c.entityId,
      request_id: c.requestId,
      before: c.before === null ? null : JSON.stringify(c.before),
      after: c.after === null ? null : JSON.stringify(c.after),
      content_hash: contentHashOf(c),
      previous_hash: null,
      hash: null,
    });
    return true;
  }

  /** A sealing pass right after the transaction of `em` commits (it wrote trail rows). */
  sealAfterCommit(em: EntityManager): void {
    const trx = em.getTransactionContext();
    if (!trx) throw new Error('audit entries are written inside the transaction of the change they record');
    this.pendingCommits.add(trx as object);
  }

  private contentOf(actor: AuditActor, subject: AuditSubject, before: Record<string, unknown> | null, after: Record<string, unknown> | null) {
    return {
      id: newId('aud'),
      at: clock.now(),
      keyId: actor.keyId,
      actor: actor.name.slice(0, 200),
      action: subject.action,
      entityType: subject.entityType,
      entityId: subject.entityId,
      requestId: actor.requestId ? actor.requestId.slice(0, 100) : null,
      before,
      after,
    };
  }

  async list(ctx: { em: EntityManager; principal: Principal | null }, raw: unknown) {
    requirePermission(ctx, 'read:audit-trail');
    const q = parseInput(AuditTrailQuery, withoutEmpty(raw));
    const where: Record<string, unknown> = {};
    if (q.entity) where.entityType = q.entity;
    if (q.id) where.entityId = q.id;
    if (q.key) where.keyId = q.key;
    if (q.action) where.action = q.action;
    if (q.from || q.to) where.at = { ...(q.from ? { $gte: startOf(q.from) } : {}), ...(q.to ? { $lte: endOf(q.to) } : {}) };
    const [rows, total] = await ctx.em.findAndCount(AuditEntry, where, { orderBy: { at: 'desc', id: 'desc' }, limit: q.limit, offset: q.offset });
    return { data: rows.map(auditEntryView), pagination: { total, limit: q.limit, offset: q.offset, hasMore: q.offset + rows.length < total } };
  }

  /** Walks the whole chain in order and recomputes every hash; reports the first broken link. */
  async verify(ctx: { em: EntityManager; principal: Principal | null }): Promise<AuditVerification> {
    requirePermission(ctx, 'read:audit-trail');
    const conn = ctx.em.getConnection();
    let problems = 0;
    let firstBroken: AuditVerification['firstBroken'] = null;
    const flag = (broken: NonNullable<AuditVerification['firstBroken']>) => {
      problems++;
      firstBroken ??= broken;
    };
    let expectedSeq = 1;
    let previousHash = GENESIS_HASH;
    let sealed = 0;
    let head: AuditVerification['head'] = null;
    for (;;) {
      const rows = await conn.execute<TrailRow[]>(`select ${ROW_COLUMNS} from audit_trail where seq >= ? order by seq limit ?`, [expectedSeq, VERIFY_BATCH]);
      for (const r of rows) {
        const seq = Number(r.seq);
        sealed++;
        if (seq !== expectedSeq) {
          flag({ seq, id: r.id, problem: 'rows-missing', message: `rows ${expectedSeq}…${seq - 1} of the chain are missing`, expected: String(expectedSeq), found: String(seq) });
        }
        const content = contentOf(r);
        if (content !== r.content_hash) {
          flag({ seq, id: r.id, problem: 'content-altered', message: `row ${seq} no longer matches its content hash: its content was changed`, expected: r.content_hash, found: content });
        }
        if (r.previous_hash !== previousHash) {
          flag({ seq, id: r.id, problem: 'link-broken', message: `row ${seq} does not link to the row before it`, expected: previousHash, found: String(r.previous_hash) });
        }
        const own = chainHashOf(seq, String(r.previous_hash), r.content_hash);
        if (own !== r.hash) {
          flag({ seq, id: r.id, problem: 'hash-altered', message: `row ${seq} carries a hash that does not follow from its position, link and content`, expected: own, found: String(r.hash) });
        }
        previousHash = String(r.hash);
        expectedSeq = seq + 1;
        head = { seq, hash: String(r.hash), at: new Date(r.at).toISOString() };
      }
      if (rows.length < VERIFY_BATCH) break;
    }
    // Unsealed rows have no link yet, but their content hash is checked all the same.
    let unsealed = 0;
    let oldestUnsealedAt: string | null = null;
    for (let offset = 0; ; offset += VERIFY_BATCH) {
      const rows = await conn.execute<TrailRow[]>(`select ${ROW_COLUMNS} from audit_trail where seq is null order by at, id limit ? offset ?`, [VERIFY_BATCH, offset]);
      for (const r of rows) {
        unsealed++;
        oldestUnsealedAt ??= new Date(r.at).toISOString();
        const content = contentOf(r);
        if (content !== r.content_hash) {
          flag({ seq: null, id: r.id, problem: 'content-altered', message: `unsealed row ${r.id} no longer matches its content hash`, expected: r.content_hash, found: content });
        }
      }
      if (rows.length < VERIFY_BATCH) break;
    }
    return {
      intact: problems === 0,
      verifiedAt: clock.now().toISOString(),
      rows: { total: sealed + unsealed, sealed, unsealed },
      oldestUnsealedAt,
      head,
      firstBroken,
      problems,
    };
  }

  /** Asks for a sealing pass soon; passes never overlap within a process. */
  kick(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.sealUntilDone()
      .catch((err) => this.opts.onError?.(err))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Seals every row visible now; resolves when done (tests and shutdown wait on it). */
  async sealNow(): Promise<void> {
    while (this.running) await this.running;
    this.kick();
    while (this.running) await this.running;
  }

  start(): void {
    this.kick();
    this.sweeper = setInterval(() => void this.sweep(), this.opts.sweepMs ?? 2000);
    this.sweeper.unref();
  }

  async stop(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    clearTimeout(this.retry);
    await this.running;
  }

  private async sweep(): Promise<void> {
    if (this.running || this.closed) return;
    try {
      const rows = await this.rootEm.getConnection().execute<{ id: string }[]>('select id from audit_trail where seq is null limit 1');
      if (rows.length) this.kick();
    } catch (err) {
      this.opts.onError?.(err);
    }
  }

  private async sealUntilDone(): Promise<void> {
    for (;;) {
      const { sealed, busy } = await this.sealBatch();
      if (busy) {
        // Another instance is sealing; rows it did not see yet are picked up by the next pass here.
        clearTimeout(this.retry);
        this.retry = setTimeout(() => this.kick(), 100);
        this.retry.unref();
        return;
      }
      if (sealed < SEAL_BATCH) return;
    }
  }

  /** One sealing transaction: the next rows that became visible, in (time, id) order, onto the chain. */
  private async sealBatch(): Promise<{ sealed: number; busy: boolean }> {
    const em = this.rootEm.fork() as EntityManager;
    return em.transactional(async (tx) => {
      const conn = tx.getConnection();
      const trx = tx.getTransactionContext();
      const [lock] = await conn.execute<{ locked: boolean }[]>(`select pg_try_advisory_xact_lock(${SEAL_LOCK}) as locked`, [], 'all', trx);
      if (!lock?.locked) return { sealed: 0, busy: true };
      // The unsealed rows in (time, id) order, then the chain's last row (the link to continue from), in one statement.
      const rows = await conn.execute<TrailRow[]>(
        `select ${ROW_COLUMNS} from (
           (select ${ROW_COLUMNS} from audit_trail where seq is null order by at, id limit ?)
           union all
           (select ${ROW_COLUMNS} from audit_trail where seq is not null order by seq desc limit 1)
         ) r order by (seq is not null), at, id`,
        [SEAL_BATCH],
        'all',
        trx,
      );
      const pending = rows.filter((r) => r.seq === null);
      if (!pending.length) return { sealed: 0, busy: false };
      const last = rows.find((r) => r.seq !== null);
      let seq = last ? Number(last.seq) : 0;
      let previousHash = last ? String(last.hash) : GENESIS_HASH;
      const sealedRows = pending.map((r) => {
        seq += 1;
        // The stored content hash is chained as it is: a row altered before sealing stays detectable.
        if (contentOf(r) !== r.content_hash) this.opts.onError?.(new Error(`audit row ${r.id} was altered before it was sealed`));
        const hash = chainHashOf(seq, previousHash, r.content_hash);
        const row = { id: r.id, seq, previous_hash: previousHash, hash };
        previousHash = hash;
        return row;
      });
      const res = await conn.execute<{ affectedRows: number }>(
        `update audit_trail a set seq = v.seq, previous_hash = v.previous_hash, hash = v.hash
           from jsonb_to_recordset(?::jsonb) as v(id text, seq bigint, previous_hash text, hash text)
          where a.id = v.id and a.seq is null`,
        [JSON.stringify(sealedRows)],
        'run',
        trx,
      );
      if ((res.affectedRows ?? 0) !== sealedRows.length) throw new Error(`audit sealing raced: ${res.affectedRows} of ${sealedRows.length} rows sealed`);
      return { sealed: sealedRows.length, busy: false };
    });
  }
}

function withoutEmpty(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw ?? {};
  return Object.fromEntries(Object.entries(raw as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined && v !== ''));
}
