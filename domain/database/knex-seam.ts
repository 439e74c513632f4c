import { resolvedPackageVersion } from './package-version';

/**
 * The one place the gateway reaches under knex's public API. knex has no public hook around the
 * statement a connection runs, and two things need one: the database guard (a hung database turned
 * into a prompt 503, guard.ts) and statement pipelining (a transaction's BEGIN and follow-up statements
 * sent with the next one, statement-pipelining.ts). Both wrap `Client.prototype._query(connection,
 * obj)` — the method every statement of a client and of its transactions goes through — here, and
 * only here. tests/unit/framework-seams.test.ts fails on any knex version this was not written for,
 * so an upgrade is checked against `_query`'s contract before it lands.
 */

/** The knex versions whose `_query(connection, obj): Promise<obj>` this seam was checked against. */
export const KNEX_VERSIONS_CHECKED = ['3.2.10'];

/** A statement as knex hands it to `_query`: its text, bindings, and (once run) the driver's answer. */
export interface KnexQuery {
  sql: string;
  bindings?: unknown[];
  response?: unknown;
}

/** Runs a statement on a connection (knex's own `_query`, or the wrapper installed before). */
export type RunQuery = (this: unknown, connection: any, obj: KnexQuery) => Promise<KnexQuery>; // eslint-disable-line @typescript-eslint/no-explicit-any -- knex's connection type is its driver's (pg.Client), untyped at this layer

/** The installed knex version. */
export const knexVersion = (): string => resolvedPackageVersion('knex');

/**
 * Wraps `_query` of a knex client prototype once per `marker`: `wrap` receives the statement runner
 * installed so far and returns the one to install. Idempotent per marker.
 */
export function wrapStatements(proto: Record<PropertyKey, unknown>, marker: symbol, wrap: (run: RunQuery) => RunQuery): void {
  if (proto[marker]) return;
  const run = proto._query;
  if (typeof run !== 'function') throw new Error(`knex ${knexVersion()}: Client.prototype._query is gone; see domain/database/knex-seam.ts`);
  proto._query = wrap(run as RunQuery);
  proto[marker] = true;
}
