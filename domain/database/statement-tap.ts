/**
 * Who sent what to the database: every statement as the gateway states it, and every message as it
 * leaves (after statement pipelining has joined a transaction's statements, statement-pipelining.ts).
 * Two taps on knex's statement hook (knex-seam.ts): `stated` sits outside the pipelining, so it sees
 * each statement (`BEGIN` and `COMMIT` included); `sent` sits inside it, so it sees each round trip.
 * Nothing listens in production; a listener costs one call per statement. Tests count a create's
 * statements and round trips, and read the SQL a GraphQL query issued, through `listenToStatements`.
 */
import { wrapStatements } from './knex-seam';

export type StatementTap = 'stated' | 'sent';
/**
 * `connection` is the driver connection the statement runs on (one per transaction, from `BEGIN` to
 * `COMMIT`); `bindings` its bound values (`$1`…), for the statements sent with them (prepared-reads.ts).
 */
export type StatementListener = (tap: StatementTap, sql: string, connection: object, bindings: readonly unknown[]) => void;

const listeners = new Set<StatementListener>();
const MARKERS: Record<StatementTap, symbol> = { stated: Symbol('statementTap.stated'), sent: Symbol('statementTap.sent') };

/** Installs one tap on a knex client prototype (idempotent per tap). */
export function tapStatements(proto: Record<PropertyKey, unknown>, tap: StatementTap): void {
  wrapStatements(
    proto,
    MARKERS[tap],
    (run) =>
      function tappedQuery(this: unknown, connection, obj) {
        if (listeners.size && typeof obj.sql === 'string') for (const l of listeners) l(tap, obj.sql, connection as object, obj.bindings ?? []);
        return run.call(this, connection, obj);
      },
  );
}

/** Calls `listener` for every statement and message of every database this process opened; returns the unsubscribe. */
export function listenToStatements(listener: StatementListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
