import type { MikroORM } from '@mikro-orm/postgresql';
import { clock, type Clock } from '../clock';

/**
 * Planner statistics and dead rows, looked after by the gateway itself.
 *
 * Without statistics PostgreSQL guesses a table of a few rows and reads a page of 50 requirements
 * by scanning and sorting the whole table (181 ms at 10,000 rows embedded, 53 ms at 100,000 on a
 * server, against 0.2–2 ms through the index it picks once the table is analysed). PGlite runs no
 * autovacuum at all, and a server's autovacuum looks at most once a minute (`autovacuum_naptime`),
 * or never when its operators turned it off: after a bulk import every list read would pay the
 * sort until then. So each instance checks every few seconds, with autovacuum's default
 * thresholds: ANALYZE a table once 50 + 10 % of its rows changed since its last analysis, and,
 * where no autovacuum runs (the embedded database, a server with `autovacuum = off`), VACUUM
 * (ANALYZE) it once 50 + 20 % of its rows are dead. A server that runs autovacuum keeps vacuuming
 * to itself, as its operators tuned it.
 *
 * The statements go through the ordinary pool: the embedded socket server serialises them with
 * every other session's transactions as it does any statement; on a server they take only
 * ANALYZE's and VACUUM's own lock, which blocks no reader or writer. Two instances that pass at
 * once may analyse one table twice; the second finds nothing to do on its next pass.
 */
export interface UpkeepOptions {
  intervalMs?: number;
  /** Also VACUUM: nothing else removes dead rows (the embedded database, a server without autovacuum). */
  vacuum: boolean;
  onError?: (err: unknown) => void;
  onRun?: (table: string, action: UpkeepAction) => void;
  /** The clock for back-off after a failure (the process clock unless a test gives one). */
  clock?: Clock;
}

export type UpkeepAction = 'analyze' | 'vacuum';

interface TableActivity {
  relname: string;
  n_live_tup: string | number;
  n_dead_tup: string | number;
  n_mod_since_analyze: string | number;
}

export const ANALYZE_BASE = 50;
export const ANALYZE_SCALE = 0.1;
export const VACUUM_BASE = 50;
export const VACUUM_SCALE = 0.2;
/** A table whose upkeep failed waits this long before the next try, doubling up to the maximum. */
export const MIN_BACKOFF_MS = 60_000;
export const MAX_BACKOFF_MS = 3_600_000;

export interface DatabaseUpkeep {
  /** Whether this upkeep vacuums too (see `UpkeepOptions.vacuum`). */
  readonly vacuums: boolean;
  /** One pass now (also what the timer runs); resolves with what it did. */
  runOnce(): Promise<{ table: string; action: UpkeepAction }[]>;
  stop(): Promise<void>;
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Whether the server behind `orm` runs autovacuum (PGlite reports `on` but runs no worker: ask only servers). */
export async function serverRunsAutovacuum(orm: MikroORM): Promise<boolean> {
  const [row] = await orm.em.getConnection().execute<{ autovacuum: string }[]>(`select current_setting('autovacuum') as autovacuum`);
  return row?.autovacuum === 'on';
}

export function startUpkeep(orm: MikroORM, opts: UpkeepOptions): DatabaseUpkeep {
  const intervalMs = opts.intervalMs ?? 10_000;
  let running: Promise<unknown> | null = null;
  let stopped = false;
  const failures = new Map<string, { waitMs: number; until: number }>();
  const time: Clock = opts.clock ?? clock;

  const pass = async () => {
    const connection = orm.em.getConnection();
    const tables = await connection.execute<TableActivity[]>(
      `select relname, n_live_tup, n_dead_tup, n_mod_since_analyze from pg_stat_user_tables where schemaname = current_schema()`,
    );
    const done: { table: string; action: UpkeepAction }[] = [];
    for (const t of tables) {
      if (stopped) break;
      const live = Number(t.n_live_tup);
      const action: UpkeepAction | null =
        opts.vacuum && Number(t.n_dead_tup) > VACUUM_BASE + VACUUM_SCALE * live
          ? 'vacuum'
          : Number(t.n_mod_since_analyze) > ANALYZE_BASE + ANALYZE_SCALE * live
            ? 'analyze'
            : null;
      if (!action) continue;
      const backoff = failures.get(t.relname);
      if (backoff && time.nowMs() < backoff.until) continue;
      try {
        await connection.execute(action === 'vacuum' ? `vacuum (analyze) ${quoted(t.relname)}` : `analyze ${quoted(t.relname)}`);
      } catch (err) {
        // A table that cannot be done (a VACUUM of a very large table past the pool's statement
        // timeout, a lock it cannot have) is tried again later, not every pass: each try costs the
        // server the work up to the failure.
        const waitMs = Math.min(MAX_BACKOFF_MS, (backoff?.waitMs ?? MIN_BACKOFF_MS / 2) * 2);
        failures.set(t.relname, { waitMs, until: time.nowMs() + waitMs });
        opts.onError?.(err);
        continue;
      }
      failures.delete(t.relname);
      done.push({ table: t.relname, action });
      opts.onRun?.(t.relname, action);
    }
    return done;
  };

  const runOnce = () => {
    // One pass at a time: a slow VACUUM must not have the next tick start another beside it.
    const current = (running ??= pass().finally(() => (running = null)));
    return current as Promise<{ table: string; action: UpkeepAction }[]>;
  };

  const timer = setInterval(() => {
    runOnce().catch((err) => opts.onError?.(err));
  }, intervalMs);
  timer.unref();

  return {
    vacuums: opts.vacuum,
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
