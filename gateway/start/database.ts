import type { EntityManager } from '@mikro-orm/postgresql';
import type { EmbeddedSupervisor } from '../../domain/database/embedded-supervisor';
import { openDatabase, type Database } from '../../domain/database/orm';
import { DatabaseGuard } from '../../domain/database/guard';
import { PgAdvisoryLocks } from '../../domain/database/advisory-locks';
import type { GatewayConfig } from '../config';
import type { DatabaseState } from '../../domain/health';
import type { Logger } from '../logger';

/** How long the embedded database may answer nothing before it counts as hung. */
const EMBEDDED_HANG_MS = 10_000;

export interface DataLayer {
  db: Database;
  /** The ORM's root entity manager (each request forks its own). */
  rootEm: EntityManager;
  /** Cluster-wide locks on a shared PostgreSQL (none on the embedded database). */
  locks?: PgAdvisoryLocks;
  /** The database as the health endpoint reports it: up, or why not. */
  databaseState(): DatabaseState;
  /** Runs one-time start-up work under the cluster-wide start-up lock (directly on the embedded database). */
  onceAcrossInstances<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * The database, migrated, with its guard. Shared PostgreSQL means several instances may start
 * together: one-time start-up work (migrations, bootstrap admin, baselines) runs under one
 * cluster-wide lock. PGlite is one process.
 */
export async function openDataLayer(
  config: GatewayConfig,
  log: Logger,
  embedded?: Promise<EmbeddedSupervisor>,
  onDatabaseLost?: (err: Error) => void,
): Promise<DataLayer> {
  const locks = config.databaseUrl ? new PgAdvisoryLocks(config.databaseUrl, { onWarning: (message, err) => log.warn({ err }, message) }) : undefined;
  const onceAcrossInstances = <T>(fn: () => Promise<T>) => (locks ? locks.withLock('gateway.startup', fn) : fn());
  const db = await onceAcrossInstances(() =>
    openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolSize: config.databasePoolSize,
      preparedStatements: config.databasePreparedStatements,
      embeddedRestartMs: config.embeddedRestartMs,
      embedded,
      // The pool's messages (a dropped connection, say) as log lines; the outage itself answers 503.
      onDriverMessage: (level, message) => log[level === 'deprecate' ? 'warn' : level]({ component: 'database-driver' }, String(message)),
    }),
  );
  // MikroORM is opened with the PostgreSQL driver (domain/database/orm.ts), so its root manager is that driver's.
  const rootEm = db.orm.em as EntityManager;
  // A hung database answers 503 within about two seconds, and the gateway closes again by itself.
  const guard = new DatabaseGuard(rootEm.getConnection().getKnex().client, {
    // One embedded session serialises a long statement and the guard's probe alike, so a busy embedded
    // database looked hung after 1 s (issue 37: "database falsely reported unreachable"). Its process
    // is supervised (an exit trips the guard at once), so a hang is given longer there.
    hangMs: config.databaseUrl ? config.databaseHangMs : Math.max(config.databaseHangMs, EMBEDDED_HANG_MS),
    onTrip: (reason) => log.error({ component: 'database-guard', reason }, 'database unavailable: answering 503 until it responds'),
    onRecover: (downMs) => log.warn({ component: 'database-guard', downMs }, 'database answers again'),
  });
  // The embedded database's process exits: 503 at once (not after a hang is noticed) while it is
  // restarted; the guard's probes close again as soon as it answers.
  const supervisor = db.supervisor;
  if (supervisor) {
    Object.assign(supervisor.opts, {
      onExit: (info: { code: number | null; signal: string | null }) => {
        log.error({ component: 'embedded-database', ...info }, 'the embedded database exited; restarting it');
        guard.forceDown('the embedded database exited');
      },
      onRestarted: (info: { restarts: number; downMs: number }) => log.warn({ component: 'embedded-database', ...info }, 'the embedded database is back'),
      onGiveUp: (err: Error) => {
        log.fatal({ component: 'embedded-database', err }, 'the embedded database could not be restarted');
        onDatabaseLost?.(err);
      },
    });
  }
  return {
    db,
    rootEm,
    locks,
    onceAcrossInstances,
    databaseState: () => {
      const embeddedState = supervisor?.state();
      if (embeddedState && embeddedState.state !== 'up') return { state: embeddedState.state, embedded: embeddedState };
      return { state: guard.available ? 'up' : 'unavailable', ...(embeddedState ? { embedded: embeddedState } : {}) };
    },
    async close() {
      guard.close();
      await db.close();
    },
  };
}
