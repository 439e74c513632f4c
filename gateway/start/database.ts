import type { EmbeddedPostgres } from '../../domain/database/embedded';
import { openDatabase, type Database } from '../../domain/database/orm';
import { DatabaseGuard } from '../../domain/database/guard';
import { PgAdvisoryLocks } from '../../domain/database/advisory-locks';
import type { GatewayConfig } from '../config';
import type { Logger } from '../logger';

export interface DataLayer {
  db: Database;
  /** The ORM's root entity manager (each request forks its own). */
  rootEm: any;
  /** Cluster-wide locks on a shared PostgreSQL (none on the embedded database). */
  locks?: PgAdvisoryLocks;
  /** Runs one-time start-up work under the cluster-wide start-up lock (directly on the embedded database). */
  onceAcrossInstances<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * The database, migrated, with its guard. Shared PostgreSQL means several instances may start
 * together: one-time start-up work (migrations, bootstrap admin, baselines) runs under one
 * cluster-wide lock. PGlite is one process.
 */
export async function openDataLayer(config: GatewayConfig, log: Logger, embedded?: Promise<EmbeddedPostgres>): Promise<DataLayer> {
  const locks = config.databaseUrl ? new PgAdvisoryLocks(config.databaseUrl, { onWarning: (message, err) => log.warn({ err }, message) }) : undefined;
  const onceAcrossInstances = <T>(fn: () => Promise<T>) => (locks ? locks.withLock('gateway.startup', fn) : fn());
  const db = await onceAcrossInstances(() =>
    openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolSize: config.databasePoolSize,
      embedded,
      // The pool's messages (a dropped connection, say) as log lines; the outage itself answers 503.
      onDriverMessage: (level, message) => log[level === 'deprecate' ? 'warn' : level]({ component: 'database-driver' }, String(message)),
    }),
  );
  const rootEm = db.orm.em as any;
  // A hung database answers 503 within about two seconds, and the gateway closes again by itself.
  const guard = new DatabaseGuard(rootEm.getConnection().getKnex().client, {
    hangMs: config.databaseHangMs,
    onTrip: (reason) => log.error({ component: 'database-guard', reason }, 'database unavailable: answering 503 until it responds'),
    onRecover: (downMs) => log.warn({ component: 'database-guard', downMs }, 'database answers again'),
  });
  return {
    db,
    rootEm,
    locks,
    onceAcrossInstances,
    async close() {
      guard.close();
      await db.close();
    },
  };
}
