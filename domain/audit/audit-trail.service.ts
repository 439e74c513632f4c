import type { TransactionEventArgs } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { requirePermission, type Principal } from '../auth/principal';
import { newId } from '../ids';
import { parseInput } from '../validation';
import type { RowSink } from '../database/row-batch';
import { AuditEntry } from './audit-entry.entity';
import { changedFields, contentHashOf } from './chain';
import { AuditSealer, type AuditSealerOptions } from './audit-sealer';
import { verifyTrail, type AuditVerification } from './audit-verify';

export { AUDIT_PROBLEMS, type AuditProblem, type AuditVerification } from './audit-verify';
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

export type AuditTrailOptions = AuditSealerOptions;

/**
 * The audit trail: every change to a record, with who, when and the values before and after.
 *
 * Writers only insert (in their own transaction, no shared row touched, no lock taken), so recording
 * costs one row per change, in the statement that writes the change's other appended rows, and never
 * makes writers wait on each other. The rows are chained off the request path, in batches, by the
 * sealer (audit-sealer.ts); verification (audit-verify.ts) recomputes all of it.
 */
export class AuditTrail {
  private readonly pendingCommits = new WeakSet<object>();
  readonly sealer: AuditSealer;

  constructor(rootEm: EntityManager, opts: AuditTrailOptions = {}) {
    this.sealer = new AuditSealer(rootEm, opts);
    // A commit that wrote trail rows asks for a sealing pass soon; the commits until then share it.
    rootEm.getEventManager().registerSubscriber({
      afterTransactionCommit: (args: TransactionEventArgs) => {
        if (args.transaction && this.pendingCommits.has(args.transaction as object)) this.sealer.kickSoon();
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

  /** A transaction opened on the connection (no ORM commit event) that wrote trail rows has committed: a sealing pass soon. */
  sealSoon(): void {
    this.sealer.kickSoon();
  }

  /**
   * Once the transaction of `em` commits (it wrote trail rows), a batched sealing pass soon after,
   * shared with the commits around it. Sends nothing: the transaction is only marked.
   */
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
    return verifyTrail(ctx.em);
  }

  /** Seals every row visible now; resolves when done (tests and shutdown wait on it). */
  sealNow(): Promise<void> {
    return this.sealer.sealNow();
  }

  start(): void {
    this.sealer.start();
  }

  stop(): Promise<void> {
    return this.sealer.stop();
  }
}

function withoutEmpty(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw ?? {};
  return Object.fromEntries(Object.entries(raw as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined && v !== ''));
}
