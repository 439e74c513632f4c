import type { EntityManager } from '@mikro-orm/postgresql';
import type { Knex } from '@mikro-orm/knex';
import { SENT_WITH_NEXT } from './statement-pipelining';

/** A row as its table's columns name it; values as the driver sends them (JSON columns already serialised). */
export type ColumnRow = Record<string, unknown>;

/** Where a change's appended rows go (audit entries, activity, history snapshots, webhook deliveries). */
export interface RowSink {
  add(table: string, row: ColumnRow): void;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * `sql` with `params` in `em`'s transaction, answering its rows. What `Connection.execute` does (values
 * inlined by the platform, so pipelined statements travel in one simple-protocol message), minus knex's
 * `transacting()`, which walks every property of the transaction on each statement (lodash `isEmpty`,
 * ~2 % of a create's CPU, issue #36): the statement is built on the transaction itself. Outside a
 * transaction it is `execute` as before.
 */
async function runInTransaction<T>(em: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  const trx = em.getTransactionContext<Knex.Transaction>();
  if (!trx) return em.getConnection().execute<T[]>(sql, params, 'all');
  const formatted = em.getPlatform().formatQuery(sql, params);
  // Told to MikroORM's logger as `execute` tells it: query logging, and the bench's statement count, see it.
  em.config.getLogger().logQuery({ query: formatted, level: 'info' });
  const res = (await trx.raw(formatted)) as { rows: T[] } | { rows: T[] }[];
  // A message of several statements answers each; the last one is the statement's own.
  return Array.isArray(res) ? res[res.length - 1].rows : res.rows;
}

/**
 * Rows that only ever get appended, of several tables, inserted in one statement (one round trip
 * instead of one per table, and none of the unit of work's change tracking): a data-modifying
 * `with` whose every part is an insert. Rows of a table naming other columns than its first row
 * get an insert of their own in the statement.
 */
export class RowBatch implements RowSink {
  private readonly tables = new Map<string, { table: string; columns: string[]; rows: ColumnRow[] }>();

  add(table: string, row: ColumnRow): void {
    let t = this.tables.get(table);
    if (t && !namesColumns(row, t.columns)) {
      const columns = Object.keys(row);
      const key = `${table}\u0000${columns.join(',')}`;
      t = this.tables.get(key);
      if (!t) this.tables.set(key, (t = { table, columns, rows: [] }));
    } else if (!t) this.tables.set(table, (t = { table, columns: Object.keys(row), rows: [] }));
    t.rows.push(row);
  }

  get size(): number {
    let n = 0;
    for (const t of this.tables.values()) n += t.rows.length;
    return n;
  }

  /**
   * Sends every row in `em`'s transaction and empties the batch; nothing is sent when it is empty.
   * The insert answers nothing anyone reads, so it travels with the transaction's next statement
   * (statement-pipelining.ts): a failure shows there, and the transaction fails with it.
   */
  async insert(em: EntityManager): Promise<void> {
    if (!this.tables.size) return;
    const { inserts, params } = this.take();
    const last = inserts.pop()!;
    const sql = SENT_WITH_NEXT + (inserts.length ? `with ${inserts.map((s, i) => `w${i} as (${s})`).join(', ')} ${last}` : last);
    await runInTransaction(em, sql, params);
  }

  /**
   * Every row, then `read`, in one statement (`with` inserts, `read` its main query), and the
   * batch emptied. `read` runs on the statement's snapshot: it does not see these rows, nor what
   * their triggers write (row triggers fire at the statement's end). Its answer is read, so the
   * statement is not held for the next one; a held `BEGIN` travels with it.
   */
  async insertThenRead<T>(em: EntityManager, read: string): Promise<T[]> {
    const { inserts, params } = this.take();
    const sql = inserts.length ? `with ${inserts.map((s, i) => `w${i} as (${s})`).join(', ')} ${read}` : read;
    return runInTransaction<T>(em, sql, params);
  }

  private take(): { inserts: string[]; params: unknown[] } {
    const params: unknown[] = [];
    const inserts = [...this.tables.values()].map(({ table, columns, rows }) => {
      const values = rows.map((row) => {
        for (const c of columns) params.push(row[c] ?? null);
        return `(${columns.map(() => '?').join(', ')})`;
      });
      return `insert into ${quote(table)} (${columns.map(quote).join(', ')}) values ${values.join(', ')}`;
    });
    this.tables.clear();
    return { inserts, params };
  }
}

/** Whether `row` names exactly `columns`, in that order. */
function namesColumns(row: ColumnRow, columns: readonly string[]): boolean {
  let i = 0;
  for (const key in row) if (key !== columns[i++]) return false;
  return i === columns.length;
}
