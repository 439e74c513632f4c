import { MikroORM, PostgreSqlDriver, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { embeddedDataDir } from './embedded';
import { EmbeddedSupervisor } from './embedded-supervisor';
import { serverRunsAutovacuum, startUpkeep, type DatabaseUpkeep } from './upkeep';
import { ENTITIES } from './entities';
import { GatewayEntityManager } from './orm-seam';
import { MIGRATIONS } from '../../migrations';
import { answerSqlCountOverIpc, countingLoggerFactory, sqlCountingEnabled } from './query-counter';
import { nameStatementsOn } from './prepared-reads';
import { pipelineTransactionStatements } from './statement-pipelining';
import { tapStatements } from './statement-tap';
import { countWrites } from './write-epoch';

export interface DatabaseOptions {
  /** PostgreSQL URL; when absent an embedded PGlite database under `dataDir` is served over a loopback socket. */
  databaseUrl?: string;
  dataDir: string;
  poolSize?: number;
  debug?: boolean;
  /** Where the driver's own messages go (knex prints connection errors with console.log otherwise). */
  onDriverMessage?: (level: 'warn' | 'error' | 'deprecate' | 'debug', message: unknown) => void;
  /** The embedded database when its start was begun earlier (it overlaps the gateway's module loading). */
  embedded?: Promise<EmbeddedSupervisor>;
  /** How long the embedded database is restarted before giving up (EmbeddedSupervisor). */
  embeddedRestartMs?: number;
  /** How often statistics (and, where no autovacuum runs, dead rows) are checked (see upkeep.ts). */
  upkeepIntervalMs?: number;
  /** Hot reads as named prepared statements on a PostgreSQL server (prepared-reads.ts); default on. */
  preparedStatements?: boolean;
}

export interface Database {
  orm: MikroORM;
  embedded: boolean;
  /** The embedded database's process, restarted when it exits (absent on PostgreSQL). */
  supervisor?: EmbeddedSupervisor;
  /** Statistics soon after bulk changes, and dead rows where no autovacuum runs (see upkeep.ts). */
  upkeep: DatabaseUpkeep;
  close(): Promise<void>;
}

/** A PostgreSQL URL, or the directory of the embedded database's private Unix socket. */
export type DatabaseTarget = string | { socketDir: string };

/** The statement each new pool connection runs first when named statements are on (see `afterCreate` below). */
export const CONNECTION_SET_UP = 'set plan_cache_mode = force_generic_plan';

/** knex's hook on a new pool connection (a `pg` Client): named statements get generic plans. */
function planOnce(connection: { query(sql: string, done: (err: Error | null) => void): void }, done: (err: Error | null, c: unknown) => void) {
  connection.query(CONNECTION_SET_UP, (err) => done(err, connection));
}

export function ormOptions(target: DatabaseTarget, poolSize = 10, onDriverMessage?: DatabaseOptions['onDriverMessage'], namedStatements = false): Options {
  return {
    driver: PostgreSqlDriver,
    // A socket is named by its directory in `host` (libpq's convention, which `pg` follows).
    ...(typeof target === 'string' ? { clientUrl: target } : { host: target.socketDir, port: 5432, user: 'postgres', dbName: 'postgres' }),
    entities: ENTITIES,
    // Flushes and transactions without MikroORM's AsyncLocalStorage (orm-seam.ts).
    entityManager: GatewayEntityManager,
    extensions: [Migrator],
    migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    pool: {
      min: 0,
      max: poolSize,
      acquireTimeoutMillis: 5000,
      idleTimeoutMillis: 30000,
      // Named statements (prepared-reads.ts) are planned once, generically: every documented filter
      // has an index that serves it whatever the value. Left to choose, PostgreSQL plans the list
      // page anew on every call (it prices an `offset $n` at a tenth of the table). MikroORM inlines
      // its values, so no other statement of these connections is prepared with parameters.
      ...(namedStatements ? { afterCreate: planOnce } : {}),
    },
    driverOptions: {
      connection: { connectionTimeoutMillis: 3000, statement_timeout: 30000 },
      ...(onDriverMessage
        ? {
            log: {
              warn: (m: unknown) => onDriverMessage('warn', m),
              error: (m: unknown) => onDriverMessage('error', m),
              deprecate: (m: unknown) => onDriverMessage('deprecate', m),
              debug: (m: unknown) => onDriverMessage('debug', m),
            },
          }
        : {}),
    },
    // Every request works on a fork; touching the global EntityManager is a bug we want to hear about.
    allowGlobalContext: false,
    forceUtcTimezone: true,
    debug: false,
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
    ensureIndexes: false,
    // Bench only: count SQL statements per request (see query-counter.ts).
    ...(sqlCountingEnabled() ? { loggerFactory: countingLoggerFactory } : {}),
  };
}

/** Whether the server behind a URL is a PGlite (pglite-socket), whose connections share one session. */
async function isPglite(orm: MikroORM): Promise<boolean> {
  const [row] = await orm.em.getConnection().execute<{ version: string }[]>('select version() as version');
  return /PGlite/.test(row?.version ?? '');
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (sqlCountingEnabled()) answerSqlCountOverIpc();
  let target: DatabaseTarget | undefined = opts.databaseUrl;
  let stopEmbedded: (() => Promise<void>) | undefined;
  let supervisor: EmbeddedSupervisor | undefined;
  if (!target) {
    // The embedded database runs in a process of its own, restarted when it exits; see embedded-postgres-server.cjs.
    supervisor = await (opts.embedded ?? EmbeddedSupervisor.start(embeddedDataDir(opts.dataDir), { giveUpAfterMs: opts.embeddedRestartMs }));
    target = { socketDir: supervisor.socketDir };
    stopEmbedded = () => supervisor!.stop();
  }
  let orm: MikroORM;
  try {
    // A server keeps each connection's named statements; the embedded database's connections share one session.
    const namedStatements = typeof target === 'string' && opts.preparedStatements !== false;
    orm = await MikroORM.init(ormOptions(target, opts.poolSize ?? 10, opts.onDriverMessage, namedStatements));
    const proto = Object.getPrototypeOf(orm.em.getConnection().getKnex().client);
    // Messages as they leave (inside the pipelining), statements as they are stated (outside it).
    tapStatements(proto, 'sent');
    pipelineTransactionStatements(proto);
    tapStatements(proto, 'stated');
    // Each statement as stated, before the pipelining defers or joins it (write-epoch.ts).
    countWrites(proto);
    // A PGlite behind a URL (pglite-socket) serves every connection from one session too.
    if (namedStatements && !(await isPglite(orm))) nameStatementsOn(orm.em.getConnection().getKnex());
    await orm.getMigrator().up();
  } catch (err) {
    await stopEmbedded?.();
    throw err;
  }
  let upkeep: DatabaseUpkeep;
  try {
    // PGlite reports autovacuum on but runs no worker; a server says whether its own runs.
    const vacuum = stopEmbedded ? true : !(await serverRunsAutovacuum(orm));
    upkeep = startUpkeep(orm, {
      vacuum,
      intervalMs: opts.upkeepIntervalMs,
      onError: (err) => opts.onDriverMessage?.('warn', `database upkeep failed: ${(err as Error)?.message ?? err}`),
    });
  } catch (err) {
    await orm.close(true);
    await stopEmbedded?.();
    throw err;
  }
  return {
    orm,
    embedded: !!stopEmbedded,
    supervisor,
    upkeep,
    async close() {
      await upkeep.stop();
      await orm.close(true);
      await stopEmbedded?.();
    },
  };
}
