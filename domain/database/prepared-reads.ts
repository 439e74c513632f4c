import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Knex } from '@mikro-orm/knex';
import { countStatement } from './query-counter';

/**
 * Hot reads as named prepared statements, so PostgreSQL plans them once per connection.
 *
 * Why: MikroORM's `execute` inlines the values into the text and sends it as a simple query, which
 * PostgreSQL parses and plans on every call. For the list page (the tally join, the page and each
 * row's findings as JSON) planning cost more than running: 1.0 ms planning against 0.6 ms executing
 * on a warm server, and pgbench ran the statement 1.65x as often prepared as unprepared.
 *
 * How: the statement goes through knex's public `raw(sql, bindings).options({ name })`; knex hands
 * the options to the driver (`pg`), which parses a named statement once per connection and then only
 * binds and executes it, on the generic plan the pool's connections are set to (orm.ts `planOnce`).
 * The name is a digest of the text, so one text is one name on every connection.
 *
 * Only on a PostgreSQL server. The embedded database serves all of its connections from one session
 * (pglite-socket in front of one PGlite), where two connections preparing the same name would
 * collide; there the statement goes as before: values inlined, one simple query.
 * `DATABASE_PREPARED_STATEMENTS=false` turns naming off for a server behind a pooler that does not
 * keep prepared statements per client (PgBouncer in transaction mode before 1.21).
 *
 * Texts are named up to a bound (the distinct texts are the projections a client can select, a
 * small set in practice; an unbounded set would grow every connection's statement list): past it a
 * text goes as an unnamed one does, values inlined.
 */

/** Distinct statement texts given names, at most; any further text is sent unnamed. */
export const MAX_NAMED_STATEMENTS = 200;

const names = new Map<string, string>();
/** knex clients whose server keeps named statements per connection. */
const namingClients = new WeakSet<object>();

/** Marks the knex client of a PostgreSQL server (not the embedded database) as one to name statements on. */
export function nameStatementsOn(knex: Knex): void {
  namingClients.add(knex.client);
}

function nameOf(sql: string): string | undefined {
  let name = names.get(sql);
  if (name === undefined && names.size < MAX_NAMED_STATEMENTS) {
    name = `gw_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    names.set(sql, name);
  }
  return name;
}

/**
 * The rows of a read statement (`?` placeholders), on the request's transaction when it has one,
 * prepared once per connection on a server. Through the ORM's knex, so the database guard, the
 * statement taps and the pipelining see it like any other statement.
 */
export async function preparedRows<T>(em: EntityManager, sql: string, bindings: readonly unknown[]): Promise<T[]> {
  const connection = em.getConnection();
  const knex = connection.getKnex();
  const tx = em.getTransactionContext<Knex.Transaction>();
  const name = namingClients.has(knex.client) ? nameOf(sql) : undefined;
  // Unnamed: as MikroORM sends everything, values inlined in one simple query. The embedded
  // database's connections share one session, where an extended-protocol exchange (parse, bind,
  // execute) of one connection could be interleaved with another's.
  if (name === undefined) return connection.execute<T[]>(sql, bindings as unknown[], 'all', tx);
  const query = knex.raw(sql, bindings as Knex.RawBinding[]).options({ name });
  if (tx) query.transacting(tx);
  const result = (await query) as { rows: T[] };
  // MikroORM's logger counts the statements it sends; this one it does not see.
  countStatement();
  return result.rows;
}
