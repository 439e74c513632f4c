import type { EntityManager } from '@mikro-orm/postgresql';
import { chainHashOf, GENESIS_HASH } from './chain';
import { IdleStretch } from '../jobs/idle-stretch';

/** Rows sealed per transaction of the sealer. */
const SEAL_BATCH = 500;
/**
 * What a pass reads of a row: the chain's own columns. The content (before, after and the rest) is
 * not read back: its hash was stored with the row, and verify recomputes it for every row, sealed
 * or not (audit-verify.ts), so a row altered before it was sealed is found there.
 */
const CHAIN_COLUMNS = 'id, seq, at, content_hash, hash';
type ChainRow = { id: string; seq: string | number | null; at: unknown; content_hash: string; hash: string | null };
/** Cluster-wide: one sealer at a time across every instance on the database. */
const SEAL_LOCK = `hashtextextended('audit_trail.seal', 0)`;

export interface AuditSealerOptions {
  /** How long after a commit that wrote trail rows a pass starts; the commits meanwhile share it. */
  delayMs?: number;
  /** How often a sealer looks for rows left unsealed (a commit on another instance, a lost pass). */
  sweepMs?: number;
  onError?: (err: unknown) => void;
}

/** What the sealer did, for tests and the lock-wait measurement (docs/decisions.md). */
export interface AuditSealerStats {
  passes: number;
  rowsSealed: number;
  /** Passes that found the lock held by another instance's sealer (they waited for nothing: try-lock). */
  busy: number;
  /** Time spent in the lock statement, summed over passes. */
  lockMs: number;
}

/**
 * Chains the trail's rows off the request path. Writers only insert their rows unsealed, in their own
 * transaction; a commit that wrote some asks for a pass `delayMs` later, so the commits of that
 * interval are sealed together in one transaction (not one per write). A pass, under a cluster-wide
 * transaction-scoped advisory lock taken without waiting (`pg_try_advisory_xact_lock`: an instance
 * that finds it held tries again later), gives each unsealed row, in (time, id) order, the next
 * `seq`, the previous row's hash and its own hash SHA-256(seq : previousHash : contentHash).
 */
export class AuditSealer {
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private sweeper?: NodeJS.Timeout;
  private readonly idleSweeps = new IdleStretch();
  private retry?: NodeJS.Timeout;
  private soon?: NodeJS.Timeout;
  private readonly counters: AuditSealerStats = { passes: 0, rowsSealed: 0, busy: 0, lockMs: 0 };

  constructor(
    private readonly rootEm: EntityManager,
    private readonly opts: AuditSealerOptions = {},
  ) {}

  stats(): AuditSealerStats {
    return { ...this.counters };
  }

  /** A pass `delayMs` from now, unless one is already due: the commits until then share it. */
  kickSoon(): void {
    if (this.closed || this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      this.kick();
    }, this.opts.delayMs ?? 200);
    this.soon.unref();
  }

  /** Asks for a sealing pass now; passes never overlap within a process. */
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
    this.scheduleSweep();
  }

  /** The next sweep: every `sweepMs` while sweeps find rows, stretched while they find none (idle-stretch.ts). */
  private scheduleSweep(): void {
    if (this.closed) return;
    this.sweeper = setTimeout(() => void this.sweep().finally(() => this.scheduleSweep()), this.idleSweeps.waitMs(this.opts.sweepMs ?? 2000));
    this.sweeper.unref();
  }

  async stop(): Promise<void> {
    this.closed = true;
    clearTimeout(this.sweeper);
    clearTimeout(this.retry);
    clearTimeout(this.soon);
    await this.running;
  }

  private async sweep(): Promise<void> {
    if (this.running || this.closed) return;
    try {
      const rows = await this.rootEm.getConnection().execute<{ id: string }[]>('select id from audit_trail where seq is null limit 1');
      this.idleSweeps.looked(rows.length > 0);
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
    this.counters.passes++;
    return em.transactional(async (tx) => {
      const conn = tx.getConnection();
      const trx = tx.getTransactionContext();
      const asked = performance.now();
      const [lock] = await conn.execute<{ locked: boolean }[]>(`select pg_try_advisory_xact_lock(${SEAL_LOCK}) as locked`, [], 'all', trx);
      this.counters.lockMs += performance.now() - asked;
      if (!lock?.locked) {
        this.counters.busy++;
        return { sealed: 0, busy: true };
      }
      // The unsealed rows in (time, id) order, then the chain's last row (the link to continue from), in one statement.
      const rows = await conn.execute<ChainRow[]>(
        `select ${CHAIN_COLUMNS} from (
           (select ${CHAIN_COLUMNS} from audit_trail where seq is null order by at, id limit ?)
           union all
           (select ${CHAIN_COLUMNS} from audit_trail where seq is not null order by seq desc limit 1)
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
        // The stored content hash is chained as it is: a row altered before sealing stays detectable by verify.
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
      this.counters.rowsSealed += sealedRows.length;
      return { sealed: sealedRows.length, busy: false };
    });
  }
}
