import { clock } from '../clock';
import { wrapStatements } from './knex-seam';
/**
 * A database that refuses connections fails fast by itself (ECONNREFUSED → 503). One that hangs —
 * paused, a dead network path, a half-open connection — does not: queries and connection attempts just
 * wait, up to the pool's and the driver's timeouts, and the answer is a late 500. The guard notices a
 * hang and turns it into a prompt 503 on every transport:
 *
 * - it watches the work the pool has pending (queries, connection requests) and when for `hangMs` none
 *   of it has made progress (no query answered, no connection handed out), it checks with a probe on a
 *   fresh connection (`probeMs`). A database that is merely busy with a long statement answers the
 *   probe; a hung one does not, and the guard trips;
 * - tripped, it fails every waiting query and connection request at once, closes the sockets of the
 *   connections that were stuck (the pool replaces them), and refuses new database work immediately;
 * - it probes every `probeIntervalMs` and closes again by itself as soon as a probe answers.
 *
 * The errors carry PostgreSQL's `57P03` (cannot_connect_now), which the error catalogue maps to
 * SERVICE_UNAVAILABLE with a time to retry after. Event-loop stalls (the process, not the database, being
 * slow) restart the observation window instead of counting against the database.
 */
export interface DatabaseGuardOptions {
  /** No progress on pending work for this long starts a probe. */
  hangMs?: number;
  /** How long a probe may take before the database counts as hung. */
  probeMs?: number;
  /** While tripped: how often the database is probed. */
  probeIntervalMs?: number;
  onTrip?(reason: string): void;
  onRecover?(downMs: number): void;
}

export class DatabaseUnavailableError extends Error {
  readonly code = '57P03';
  constructor(message = 'The database is not answering') {
    super(message);
    this.name = 'DatabaseUnavailableError';
  }
}

interface Pending {
  startedAt: number;
  reject(err: Error): void;
  /** The pg client the query runs on (closed if the database hangs). */
  // knex hands the driver's connection over untyped; the guard only ends it.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  connection?: any;
}

const TICK_MS = 100;

/** The part of pg's connection the guard touches: its mark, and the socket's data events. */
type GuardedConnection = { [GUARD]?: DatabaseGuard; connection?: { stream?: { on?: (event: 'data', listener: () => void) => void } } };
const GUARD = Symbol('databaseGuard');
const PATCHED = Symbol('databaseGuard.patched');

/** Routes `_query` of every client built on this prototype through the guard of the connection, if any. */
function guardQueriesOf(proto: Record<PropertyKey, unknown>) {
  wrapStatements(
    proto,
    PATCHED,
    (query) =>
      function guardedQuery(this: unknown, connection, obj) {
        const guard: DatabaseGuard | undefined = connection?.[GUARD];
        return guard ? guard.runQuery(() => query.call(this, connection, obj), connection) : query.call(this, connection, obj);
      },
  );
}

/** Guards currently tripped in this process (usually one per gateway). */
const tripped = new Set<DatabaseGuard>();

/**
 * Whether a database this process uses is known to be down right now: follow-on failures of an
 * outage (a transaction's later statement after the guard cut it short) count as the outage, not as bugs.
 */
export function databaseKnownDown(): boolean {
  return tripped.size > 0;
}

export class DatabaseGuard {
  private readonly hangMs: number;
  private readonly probeMs: number;
  private readonly probeIntervalMs: number;
  private readonly pending = new Set<Pending>();
  private lastProgressAt = clock.nowMs();
  private lastTickAt = clock.nowMs();
  private downSince: number | null = null;
  private probing = false;
  private readonly timer: NodeJS.Timeout;
  private restore: () => void;

  /** `client` is the knex client under MikroORM (`orm.em.getConnection().getKnex().client`). */
  // knex's Client class is not exported with its connection-pool members typed; the guard wraps
  // acquireConnection/releaseConnection, which every knex version checked in knex-seam.ts has.
  constructor(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    private readonly client: any,
    private readonly opts: DatabaseGuardOptions = {},
  ) {
    this.hangMs = opts.hangMs ?? 1000;
    this.probeMs = opts.probeMs ?? 700;
    this.probeIntervalMs = opts.probeIntervalMs ?? 500;
    this.restore = this.instrument();
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  get available(): boolean {
    return this.downSince === null;
  }

  /**
   * The database is known to be gone (the embedded database's process exited): refuse work now,
   * without waiting for a hang to be noticed. Probes close the guard again once it answers.
   */
  forceDown(reason: string) {
    if (this.downSince === null) this.trip(reason);
  }

  close() {
    tripped.delete(this);
    clearInterval(this.timer);
    this.restore();
  }

  private unavailable() {
    return new DatabaseUnavailableError(this.downSince === null ? undefined : 'The database is not answering; retry shortly');
  }

  private progress() {
    this.lastProgressAt = clock.nowMs();
    this.probeFailed = false;
  }

  /**
   * Wraps the knex client's two entry points: getting a connection (instance method; transactions
   * get theirs here too) and running a query on one. Queries are wrapped on the prototype, because
   * knex builds a transaction's client from the prototype, not from this instance; each connection
   * carries the guard that handed it out, and connections without one run unguarded.
   */
  private instrument(): () => void {
    const client = this.client;
    const acquire = client.acquireConnection;
    client.acquireConnection = (...args: unknown[]) => {
      if (!this.available) return Promise.reject(this.unavailable());
      return this.watch(acquire.apply(client, args) as Promise<GuardedConnection>, undefined, (connection) => client.releaseConnection(connection)).then(
        (connection: GuardedConnection) => {
          if (connection[GUARD] !== this) {
            connection[GUARD] = this;
            // Any bytes from the database count as progress: a busy server streaming rows is not hung.
            connection.connection?.stream?.on?.('data', () => this.progress());
          }
          return connection;
        },
      );
    };
    guardQueriesOf(Object.getPrototypeOf(client));
    return () => {
      client.acquireConnection = acquire;
    };
  }

  /** One query on a connection this guard handed out. */
  runQuery<T>(run: () => Promise<T>, connection: unknown): Promise<T> {
    if (!this.available) return Promise.reject(this.unavailable());
    return this.watch(run(), connection);
  }

  /** The work's own result, unless the guard trips first; a connection handed out too late goes back. */
  private watch<T>(work: Promise<T>, connection?: unknown, giveBack?: (value: T) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const entry: Pending = {
        startedAt: clock.nowMs(),
        connection,
        reject: (err) => {
          settled = true;
          this.pending.delete(entry);
          reject(err);
        },
      };
      this.pending.add(entry);
      work.then(
        (value) => {
          this.progress();
          if (settled) return giveBack?.(value);
          settled = true;
          this.pending.delete(entry);
          resolve(value);
        },
        (err) => {
          this.progress();
          if (settled) return;
          settled = true;
          this.pending.delete(entry);
          reject(err);
        },
      );
    });
  }

  private tick() {
    const now = clock.nowMs();
    // The timer itself came late: this process was busy, so nothing could be observed; start over.
    if (now - this.lastTickAt > TICK_MS * 3) this.lastProgressAt = now;
    this.lastTickAt = now;
    if (!this.available) {
      if (!this.probing && now - this.lastProbeAt >= this.probeIntervalMs) void this.probeAndRecover();
      return;
    }
    const quietMs = now - this.lastProgressAt;
    if (!this.pending.size || quietMs < this.hangMs / 2) return;
    let oldest = now;
    for (const p of this.pending) oldest = Math.min(oldest, p.startedAt);
    if (now - oldest < this.hangMs / 2) return;
    // Quiet for half the window: the probe starts now, so that a hang is decided soon after the window
    // ends. It trips when the database stayed quiet for the whole window and the probe has not
    // answered for probeMs (or failed).
    if (quietMs >= this.hangMs && (this.probeFailed || (this.probing && now - this.probeStartedAt >= this.probeMs))) {
      this.trip('no answer from the database');
      return;
    }
    if (!this.probing && !this.probeFailed) void this.suspect();
  }

  private lastProbeAt = 0;
  private probeStartedAt = 0;
  private probeFailed = false;

  private async suspect() {
    this.probing = true;
    this.probeFailed = false;
    this.probeStartedAt = clock.nowMs();
    try {
      if (await this.probe())
        this.progress(); // busy, not hung
      else this.probeFailed = true;
    } finally {
      this.probing = false;
    }
  }

  private trip(reason: string) {
    if (!this.available) return;
    this.downSince = clock.nowMs();
    this.probeFailed = false;
    tripped.add(this);
    this.lastProbeAt = clock.nowMs();
    this.opts.onTrip?.(reason);
    const err = this.unavailable();
    for (const p of [...this.pending]) {
      p.reject(err);
      // A stuck connection is closed; the pool sees it disposed and opens a new one when needed.
      try {
        p.connection?.connection?.stream?.destroy();
      } catch {
        /* already gone */
      }
    }
  }

  private async probeAndRecover() {
    this.probing = true;
    try {
      this.lastProbeAt = clock.nowMs();
      if (await this.probe()) {
        const downMs = clock.nowMs() - (this.downSince ?? clock.nowMs());
        this.downSince = null;
        tripped.delete(this);
        this.progress();
        this.opts.onRecover?.(downMs);
      }
    } finally {
      this.probing = false;
    }
  }

  /** `select 1` on a fresh connection (not the pool's, which may all be stuck), within probeMs. */
  private probe(): Promise<boolean> {
    const Client = this.client.driver.Client;
    // knex keeps the password as a hidden (non-enumerable) property, which a spread would drop.
    const settings = this.client.connectionSettings;
    const probe = new Client({ ...settings, password: settings.password, connectionTimeoutMillis: this.probeMs, application_name: 'gateway-probe' });
    probe.on('error', () => undefined);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), this.probeMs);
    });
    const answer = (async () => {
      await probe.connect();
      await probe.query('select 1');
      return true;
    })().catch(() => false);
    return Promise.race([answer, deadline]).finally(() => {
      clearTimeout(timer);
      try {
        probe.connection?.stream?.destroy();
      } catch {
        /* already gone */
      }
    });
  }
}
