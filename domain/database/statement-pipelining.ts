/**
 * Fewer round trips per transaction: a transaction's `BEGIN` travels with its first statement, and a
 * statement marked `SENT_WITH_NEXT` travels with the statement after it (the `COMMIT`, for the last),
 * in one simple-protocol message (PostgreSQL runs a message's statements in order and answers each).
 *
 * Why: on the embedded database one transaction holds the only session from `BEGIN` to `COMMIT`,
 * so every round trip inside it is time no other request can use the database; on a server each
 * round trip is driver and event-loop work per write. A creation went from five round trips
 * (begin, insert, tally, appended rows, commit) to two: begin + (its rows and the tally read, one
 * statement since issue #36), appended rows + commit. See docs/decisions.md ("Fewer round trips").
 *
 * How: knex sends `BEGIN;` when a transaction starts, `COMMIT;` / `ROLLBACK` when it ends, and every
 * statement through its client's `_query(connection, obj)`. Wrapped here (on the prototype, as the
 * database guard does, so transaction clients get it too):
 * - `BEGIN;` is answered at once and held on the connection; the next statement on that connection
 *   carries it in front of its own text, and its answer is given without the held one's;
 * - inside a transaction, a statement whose text starts with `SENT_WITH_NEXT` is held the same way
 *   (answered at once with an empty result: only statements whose answer nobody reads may be
 *   marked) and goes out in front of the next one; outside a transaction it is sent as usual;
 * - a `ROLLBACK` drops what is held; when the `BEGIN` itself never left, there is nothing to roll
 *   back on the server either.
 * An error in a held statement is the error of the statement it travelled with; when that was the
 * `COMMIT`, the transaction is rolled back here (PostgreSQL left it open, aborted) before the error
 * is passed on, so the connection goes back to the pool clean.
 * Statements with bind parameters use the extended protocol, one statement per message: anything
 * held is then sent on its own first. (MikroORM sends its statements with their values inlined.)
 */

import { wrapStatements, type KnexQuery } from './knex-seam';

/** Prefix of a statement sent in front of its transaction's next statement (its answer is not waited for). */
export const SENT_WITH_NEXT = '/* sent with the next statement */ ';

const HELD = Symbol('statementPipelining.held');
/** Set from `BEGIN` to `COMMIT`/`ROLLBACK`: only then may a statement wait for the next one. */
const IN_TRANSACTION = Symbol('statementPipelining.inTransaction');
const PATCHED = Symbol('statementPipelining.patched');

interface Held {
  /** Statement texts waiting for the next statement on the connection, in order. */
  texts: string[];
  /** Whether `BEGIN` is among them (the server has no transaction open yet). */
  beginHeld: boolean;
}

const isBegin = (sql: string) => sql === 'BEGIN;';
const isCommit = (sql: string) => sql === 'COMMIT;';
const isRollback = (sql: string) => sql === 'ROLLBACK' || sql === 'ROLLBACK;';
const hasBindings = (obj: KnexQuery) => !!obj.bindings && obj.bindings.length > 0;

/** The driver's connection as knex hands it over, with the marks this module keeps on it. */
type PipelinedConnection = { [HELD]?: Held; [IN_TRANSACTION]?: boolean };

/** What pg answers for a statement with no rows (what a caller of a held statement gets back). */
const emptyResult = (command: string) => ({ command, rowCount: null, rows: [], fields: [] });

function hold(connection: PipelinedConnection, text: string, begin: boolean): void {
  const held: Held = connection[HELD] ?? (connection[HELD] = { texts: [], beginHeld: false });
  held.texts.push(text.replace(/[\s;]+$/, ''));
  if (begin) held.beginHeld = true;
}

/** The answer of `obj` alone, from the answers of `heldCount` held statements followed by its own. */
function withoutHeld(obj: KnexQuery, heldCount: number): KnexQuery {
  const all = obj.response as unknown[];
  const own = all.slice(heldCount);
  obj.response = own.length === 1 ? own[0] : own;
  return obj;
}

/** Installs the pipelining on a knex client prototype (idempotent). */
export function pipelineTransactionStatements(proto: Record<PropertyKey, unknown>): void {
  wrapStatements(proto, PATCHED, (run) => {
    return function pipelinedQuery(this: unknown, connection: PipelinedConnection, obj: KnexQuery): Promise<KnexQuery> {
      const sql = obj.sql;
      if (typeof sql !== 'string' || !connection) return run.call(this, connection, obj);
      if (isBegin(sql)) {
        // A connection still holding something (it never should) sends it first: order is kept.
        if (connection[HELD]) return flush.call(this, connection).then(() => pipelinedQuery.call(this, connection, obj));
        hold(connection, sql, true);
        connection[IN_TRANSACTION] = true;
        obj.response = emptyResult('BEGIN');
        return Promise.resolve(obj);
      }
      if (isCommit(sql) || isRollback(sql)) connection[IN_TRANSACTION] = false;
      if (sql.startsWith(SENT_WITH_NEXT) && connection[IN_TRANSACTION] && !hasBindings(obj)) {
        hold(connection, sql, false);
        obj.response = emptyResult('INSERT');
        return Promise.resolve(obj);
      }
      const held: Held | undefined = connection[HELD];
      if (!held) return run.call(this, connection, obj);
      if (isRollback(sql)) {
        connection[HELD] = undefined;
        // Nothing reached the server: no transaction to roll back there.
        if (held.beginHeld) {
          obj.response = emptyResult('ROLLBACK');
          return Promise.resolve(obj);
        }
        return run.call(this, connection, obj);
      }
      if (hasBindings(obj)) return flush.call(this, connection).then(() => run.call(this, connection, obj));
      connection[HELD] = undefined;
      const count = held.texts.length;
      obj.sql = `${held.texts.join(';\n')};\n${sql}`;
      return run.call(this, connection, obj).then(
        (answered) => withoutHeld(answered, count),
        async (err) => {
          obj.sql = sql;
          // PostgreSQL stops a message at its first error: a `COMMIT` behind it never ran, and the
          // transaction is left open and aborted. It is closed here, as a failed COMMIT would have.
          if (isCommit(sql)) await run.call(this, connection, { sql: 'ROLLBACK' }).catch(() => undefined);
          throw err;
        },
      );
    };

    /** Sends what `connection` holds, on its own. */
    function flush(this: unknown, connection: PipelinedConnection): Promise<unknown> {
      const held: Held | undefined = connection[HELD];
      connection[HELD] = undefined;
      if (!held) return Promise.resolve();
      return run.call(this, connection, { sql: held.texts.join(';\n') });
    }
  });
}
