// Cluster-wide mutual exclusion by key (PostgreSQL advisory locks), for work any product wants done once across instances.
import { Pool, type PoolClient } from 'pg';

/** The one interface the domain sees: run `fn` while no other instance runs it for the same key. */
export type KeyedLock = <T>(key: string, fn: () => Promise<T>) => Promise<T>;

export interface AdvisoryLockOptions {
  /** Lock connections per instance; a holder keeps one for as long as its work runs. */
  maxConnections?: number;
  /** Give up waiting for a lock after this long and run unlocked (the work re-checks its result). */
  waitTimeoutMs?: number;
  onWarning?: (message: string, err: unknown) => void;
}

/**
 * PostgreSQL session advisory locks across every instance sharing the database.
 *
 * The lock and its unlock must happen on the same server session, so each holder takes one
 * client from a small pool of its own and keeps it until `fn` settles. A separate pool (not the
 * ORM's): the work done under a lock needs ORM connections itself, and holders parked on the ORM
 * pool would starve it. If the session dies, PostgreSQL drops its locks, so a crashed instance
 * never leaves a key locked.
 *
 * These locks save duplicate work; they are not what keeps data correct (writes are upserts on
 * the key), so when the lock cannot be had in time or the database refuses, `fn` runs unlocked.
 */
export class PgAdvisoryLocks {
  private readonly pool: Pool;
  private readonly waitTimeoutMs: number;

  constructor(
    databaseUrl: string,
    private readonly opts: AdvisoryLockOptions = {},
  ) {
    this.waitTimeoutMs = opts.waitTimeoutMs ?? 120_000;
    this.pool = new Pool({
      connectionString: databaseUrl,
      max: opts.maxConnections ?? 16,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 5_000,
      application_name: 'gateway-locks',
    });
    // An idle lock session that drops is simply discarded; the next holder opens a new one.
    this.pool.on('error', (err) => this.opts.onWarning?.('advisory lock connection failed', err));
  }

  withLock: KeyedLock = async (key, fn) => {
    let client: PoolClient | undefined;
    try {
      client = await this.pool.connect();
      // lock_timeout bounds the wait for an advisory lock as for any other lock.
      await client.query(`set lock_timeout = ${Math.max(1, Math.floor(this.waitTimeoutMs))}`);
      await client.query('select pg_advisory_lock(hashtextextended($1, 0))', [key]);
    } catch (err) {
      client?.release(true);
      this.opts.onWarning?.(`could not take advisory lock '${key}'; running without it`, err);
      return fn();
    }
    let broken = false;
    try {
      return await fn();
    } finally {
      try {
        await client.query('select pg_advisory_unlock(hashtextextended($1, 0))', [key]);
      } catch (err) {
        broken = true; // closing the session below releases the lock anyway
        this.opts.onWarning?.(`could not release advisory lock '${key}'`, err);
      }
      client.release(broken ? true : undefined);
    }
  };

  /**
   * One of `slots` numbered locks of `kind` (`kind:0` … `kind:slots-1`), if any is free across the
   * instances, without waiting: the returned function frees it. Null when all are held (or the
   * database refuses: the caller then treats the work as busy). A crashed holder's session drops its lock.
   */
  async trySlot(kind: string, slots: number): Promise<(() => Promise<void>) | null> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      this.opts.onWarning?.(`could not reach the database for a '${kind}' slot`, err);
      return null;
    }
    try {
      for (let i = 0; i < slots; i++) {
        const key = `slot:${kind}:${i}`;
        const { rows } = await client.query<{ ok: boolean }>('select pg_try_advisory_lock(hashtextextended($1, 0)) as ok', [key]);
        if (rows[0]?.ok) {
          let released = false;
          return async () => {
            if (released) return;
            released = true;
            try {
              await client.query('select pg_advisory_unlock(hashtextextended($1, 0))', [key]);
              client.release();
            } catch {
              client.release(true);
            }
          };
        }
      }
    } catch (err) {
      client.release(true);
      this.opts.onWarning?.(`could not try a '${kind}' slot`, err);
      return null;
    }
    client.release();
    return null;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
