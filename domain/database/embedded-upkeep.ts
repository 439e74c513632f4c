import type { MikroORM } from '@mikro-orm/postgresql';

/**
 * PGlite runs no autovacuum, so the embedded database never gathers planner statistics by itself:
 * with none, PostgreSQL guesses a table of a few rows and reads a page of 50 requirements by
 * scanning and sorting the whole table (181 ms at 10,000 rows against 0.2 ms with the index it then
 * picks). This does autovacuum's job with autovacuum's default thresholds: ANALYZE a table once
 * 50 + 10 % of its rows changed, VACUUM (ANALYZE) it once 50 + 20 % of its rows are dead.
 *
 * The statements go through the ordinary pool, so the socket server serialises them with every
 * other session's transactions as it does any statement.
 */
export interface EmbeddedUpkeepOptions {
  intervalMs?: number;
  onError?: (err: unknown) => void;
  onRun?: (table: string, action: 'analyze' | 'vacuum') => void;
}

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

export interface EmbeddedUpkeep {
  /** One pass now (also what the timer runs); resolves with what it did. */
  runOnce(): Promise<{ table: string; action: 'analyze' | 'vacuum' }[]>;
  stop(): Promise<void>;
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

export function startEmbeddedUpkeep(orm: MikroORM, opts: EmbeddedUpkeepOptions = {}): EmbeddedUpkeep {
  const intervalMs = opts.intervalMs ?? 10_000;
  let running: Promise<unknown> | null = null;
  let stopped = false;

  const pass = async () => {
    const connection = orm.em.getConnection();
    const tables = await connection.execute<TableActivity[]>(
      `select relname, n_live_tup, n_dead_tup, n_mod_since_analyze from pg_stat_user_tables where schemaname = 'public'`,
    );
    const done: { table: string; action: 'analyze' | 'vacuum' }[] = [];
    for (const t of tables) {
      if (stopped) break;
      const live = Number(t.n_live_tup);
      const action =
        Number(t.n_dead_tup) > VACUUM_BASE + VACUUM_SCALE * live ? 'vacuum' : Number(t.n_mod_since_analyze) > ANALYZE_BASE + ANALYZE_SCALE * live ? 'analyze' : null;
      if (!action) continue;
      await connection.execute(action === 'vacuum' ? `vacuum (analyze) ${quoted(t.relname)}` : `analyze ${quoted(t.relname)}`);
      done.push({ table: t.relname, action });
      opts.onRun?.(t.relname, action);
    }
    return done;
  };

  const runOnce = () => {
    // One pass at a time: a slow VACUUM must not have the next tick start another beside it.
    const current = (running ??= pass().finally(() => (running = null)));
    return current as Promise<{ table: string; action: 'analyze' | 'vacuum' }[]>;
  };

  const timer = setInterval(() => {
    runOnce().catch((err) => opts.onError?.(err));
  }, intervalMs);
  timer.unref();

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
