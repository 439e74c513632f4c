/**
 * A count that moves whenever a statement that may change data is sent through this process's knex
 * clients, and again when it completes (committed, failed or rolled back). On a database only this
 * process can write (the embedded one: a private socket, a password made at each start), an answer
 * read before the count last moved still holds: no change can have been committed since without
 * the count moving after. The read model uses it to skip reading its version (read-model.ts).
 *
 * A statement is taken as read-only only when it plainly is (a lone SELECT, or a transaction or
 * session command that changes no row); anything else, a CTE or a joined batch included, counts.
 * Counting too much costs a version read; counting too little would serve a stale answer.
 */
import { wrapStatements } from './knex-seam';

const READ_ONLY = /^\s*(?:select|show|begin|start\s+transaction|savepoint|release|rollback|set)\b/i;
const MARKER = Symbol('writeEpoch');
let epoch = 0;

/** The count now (process-wide: every database this process opened moves it, which only costs reads). */
export const writeEpoch = (): number => epoch;

/** Installs the count on a knex client prototype (idempotent). */
export function countWrites(proto: Record<PropertyKey, unknown>): void {
  wrapStatements(
    proto,
    MARKER,
    (run) =>
      function countedQuery(this: unknown, connection, obj) {
        const sql = obj.sql;
        if (typeof sql === 'string' && READ_ONLY.test(sql) && !sql.includes(';')) return run.call(this, connection, obj);
        epoch++;
        return run.call(this, connection, obj).finally(() => {
          epoch++;
        });
      },
  );
}
