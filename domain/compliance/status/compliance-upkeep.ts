import type { EntityManager } from '@mikro-orm/postgresql';
import { clock } from '../../clock';
import { NOT_DELETED, Requirement } from '../requirements/requirement.entity';
import { clausesOf } from '../requirements/clauses';
import { IdleStretch } from '../../jobs/idle-stretch';

/**
 * Storage upkeep of the compliance figures, apart from the scoring that reads them: the tally's
 * deltas folded while they are few (every write sums them), its heap given back after a bulk import,
 * history snapshots no chart can show pruned, and clause mappings back-filled once.
 */

/** How often each instance checks whether the tally needs compacting (stretched while checks find nothing). */
export const TALLY_COMPACT_INTERVAL_MS = 1000;

/**
 * Changes committed here after which the tally is checked too, without waiting for the interval:
 * every change sums the deltas since the last compaction, so under a stream of writes their number,
 * not the interval, sets that read's cost (at 300 writes/s the interval let ~300 pile up).
 */
export const TALLY_CHECK_EVERY_CHANGES = 32;

/**
 * A tally whose heap holds fewer rows than this per page on average is mostly empty pages, and is
 * shrunk (`shrinkTally`). A full page holds ~120 tally rows; a compacted tally fills its pages.
 */
export const TALLY_MIN_ROWS_PER_PAGE = 25;
/** Pages the tally may span whatever it holds (a small tally is not worth a VACUUM). */
export const TALLY_SLACK_PAGES = 8;
/** After a shrink that left the tally as large, the next try waits this long. */
export const TALLY_SHRINK_RETRY_MS = 60_000;

const tallyPagesFor = (rows: number) => TALLY_SLACK_PAGES + rows / TALLY_MIN_ROWS_PER_PAGE;

/** How often each instance deletes the history snapshots no history can show any more. */
export const SNAPSHOT_PRUNE_INTERVAL_MS = 10 * 60_000;

export class ComplianceUpkeep {
  private compactor: NodeJS.Timeout | undefined;
  private pruner: NodeJS.Timeout | undefined;
  private compacting = false;
  private readonly idleChecks = new IdleStretch();
  /** Asks for a compaction check; set while the upkeep runs (start to stop). */
  onTallyGrowth?: () => void;

  constructor(private readonly rootEm: EntityManager) {}

  /** Runs the first compaction and pruning, then keeps doing both on their intervals. */
  async start(): Promise<void> {
    await this.compactTally();
    this.scheduleCheck();
    this.onTallyGrowth = () => void this.compactSoon();
    await this.pruneSnapshots().catch(() => undefined);
    this.pruner = setInterval(() => void this.pruneSnapshots().catch(() => undefined), SNAPSHOT_PRUNE_INTERVAL_MS);
    this.pruner.unref();
  }

  stop(): void {
    this.onTallyGrowth = undefined;
    if (this.compactor) clearTimeout(this.compactor);
    if (this.pruner) clearInterval(this.pruner);
    this.compactor = this.pruner = undefined;
  }

  /**
   * The next timed check: every TALLY_COMPACT_INTERVAL_MS while checks find work, stretched while they
   * find none (idle-stretch.ts); this instance's own writes ask for checks as they go (changeCommitted).
   */
  private scheduleCheck(): void {
    this.compactor = setTimeout(() => {
      void this.compactSoon().then((worked) => {
        this.idleChecks.looked(worked);
        if (this.onTallyGrowth) this.scheduleCheck();
      });
    }, this.idleChecks.waitMs(TALLY_COMPACT_INTERVAL_MS));
    this.compactor.unref();
  }

  /** A compaction check, never overlapping another and never waited for; true when it compacted or shrank the tally. */
  private async compactSoon(): Promise<boolean> {
    if (this.compacting) return true;
    this.compacting = true;
    try {
      return await this.compactTallyIfGrown();
    } catch {
      return false; // the database is away; the next tick tries again
    } finally {
      this.compacting = false;
    }
  }

  /**
   * Folds the tally's deltas into one row per bucket. Rows appended meanwhile by other transactions
   * are not in this statement's snapshot and stay as they are; two compactions at once each fold only
   * the rows they deleted.
   */
  async compactTally(): Promise<void> {
    const rows = await this.rootEm.getConnection().execute<{ n: number }[]>(
      `with folded as (delete from compliance_tally returning kind, framework, status, priority, clause, severity, n, passed),
       kept as (
         insert into compliance_tally (kind, framework, status, priority, clause, severity, n, passed)
         select kind, framework, status, priority, clause, severity, sum(n), sum(passed)
           from folded group by kind, framework, status, priority, clause, severity
         having sum(n) <> 0 or sum(passed) <> 0
         returning 1)
       select count(*)::int as n from kept`,
    );
    this.tallyRowsAfterCompaction = Number(rows[0]?.n ?? 0);
  }

  private tallyRowsAfterCompaction = 0;
  private changesSinceCheck = 0;

  /** A measured change (one that staged something) has committed: every `TALLY_CHECK_EVERY_CHANGES`, check the tally's size. */
  changeCommitted(): void {
    if (++this.changesSinceCheck < TALLY_CHECK_EVERY_CHANGES) return;
    this.changesSinceCheck = 0;
    this.onTallyGrowth?.();
  }

  /**
   * Compacts when the deltas appended since the last compaction outnumber the buckets kept then, and
   * shrinks the tally's heap when it is mostly empty pages.
   */
  async compactTallyIfGrown(): Promise<boolean> {
    const { rows, pages } = await this.tallySize();
    if (pages > tallyPagesFor(rows) && clock.nowMs() >= this.shrinkNotBefore) {
      // Until it has worked, not again for a while: a VACUUM by a role that does not own the table
      // only warns, and one that found the table locked gives its pages back at a later try.
      this.shrinkNotBefore = clock.nowMs() + TALLY_SHRINK_RETRY_MS;
      await this.shrinkTally();
      const after = await this.tallySize();
      if (after.pages <= tallyPagesFor(after.rows)) this.shrinkNotBefore = 0;
      return true;
    }
    if (rows > 2 * this.tallyRowsAfterCompaction + 64) {
      await this.compactTally();
      return true;
    }
    return false;
  }

  private shrinkNotBefore = 0;

  private async tallySize(): Promise<{ rows: number; pages: number }> {
    const [row] = await this.rootEm
      .getConnection()
      .execute<{ n: number; pages: number }[]>(
        `select count(*)::int as n, (pg_relation_size('compliance_tally') / current_setting('block_size')::int)::int as pages from compliance_tally`,
      );
    return { rows: Number(row?.n ?? 0), pages: Number(row?.pages ?? 0) };
  }

  /**
   * Compacts the tally into the front of its heap and gives the empty pages back. Every measurement
   * reads the whole tally, and a heap keeps its size after its rows are deleted: a bulk import appends
   * a delta per row, so after 100,000 requirements the tally's four buckets sat on the last of 431
   * pages, and every list read and every write scanned them all (PostgreSQL CPU per list read 0.24
   * against 0.17 ms at 1,000; 1.4 ms for the tally's sum under EXPLAIN). The first VACUUM tells the
   * free space map that the front pages are free, so the compaction's rows land there; the second,
   * which also clears the dead rows' index entries (left otherwise when few pages have any), leaves
   * the trailing pages empty, and VACUUM returns trailing empty pages to the file system. It takes
   * the table's exclusive lock only for that, only when no one waits, and gives up rather than wait.
   */
  async shrinkTally(): Promise<void> {
    const connection = this.rootEm.getConnection();
    await connection.execute('vacuum compliance_tally');
    await this.compactTally();
    await connection.execute('vacuum (index_cleanup on) compliance_tally');
  }

  /**
   * History shows the last reading of each UTC day (or ISO week), so of the days before today only
   * each day's last snapshot per framework is ever read: the others are deleted. Writes keep
   * appending (no writer waits on another), and the table holds one row per framework and day plus
   * today's.
   */
  async pruneSnapshots(): Promise<number> {
    const now = clock.now();
    const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const rows = await this.rootEm.getConnection().execute<{ n: number }[]>(
      `with superseded as (
         select id from (
           select id, row_number() over (partition by framework, date_trunc('day', taken_at at time zone 'UTC') order by taken_at desc, id desc) as rank
             from metric_snapshots where taken_at < ?) ranked
          where rank > 1),
       gone as (delete from metric_snapshots s using superseded where s.id = superseded.id returning 1)
       select count(*)::int as n from gone`,
      [today],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Maps requirements stored before clause mapping existed (once, under the start-up lock); deleted ones too, since their record is kept whole. */
  async backfillClauses(): Promise<number> {
    const em = this.rootEm.fork() as EntityManager;
    let done = 0;
    for (;;) {
      const rows = await em.find(Requirement, { clauses: null }, { limit: 500, orderBy: { id: 'asc' }, filters: { [NOT_DELETED]: false } });
      if (!rows.length) return done;
      for (const r of rows) r.clauses = clausesOf(r);
      await em.flush();
      em.clear();
      done += rows.length;
    }
  }
}
