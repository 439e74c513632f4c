import { Client } from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CONNECTION_SET_UP, type Database } from '../../domain/database/orm';
import { SENT_WITH_NEXT } from '../../domain/database/statement-pipelining';
import { openTestDatabase } from '../helpers/database';

/**
 * A transaction's `BEGIN` travels with its first statement and a statement marked `SENT_WITH_NEXT`
 * with the one after it (statement-pipelining.ts): fewer messages, the same outcome. Checked on the
 * embedded database and on a server (the suite's PostgreSQL when it has one).
 */
let db: Database;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ db, close } = await openTestDatabase('pipelining'));
  await sql('create table pipelining_t (id int primary key, note text)');
}, 120_000);
afterAll(async () => close?.());

const em = () => db.orm.em.fork() as EntityManager;
const sql = <T = any>(text: string, params: unknown[] = []) => db.orm.em.getConnection().execute<T[]>(text, params);
const inTx = (tx: EntityManager, text: string, method: 'all' | 'run' = 'all') => tx.getConnection().execute(text, [], method, tx.getTransactionContext());
const notes = async (from: number, to: number) =>
  (await sql(`select id, note from pipelining_t where id between ${from} and ${to} order by id`)).map((r) => `${r.id}:${r.note}`);

/**
 * Messages sent to the database (pg's `Client#query` calls) while `work` runs. A connection's
 * set-up statement (orm.ts's `afterCreate`) is not counted: the pool may finish opening a connection
 * an earlier test asked for inside the window, or open one for `work`.
 */
async function messagesDuring(work: () => Promise<unknown>): Promise<string[]> {
  const proto = Client.prototype as any;
  const query = proto.query;
  const sent: string[] = [];
  proto.query = function (this: unknown, config: any, ...rest: unknown[]) {
    sent.push(typeof config === 'string' ? config : config?.text);
    return query.call(this, config, ...rest);
  };
  try {
    await work();
  } finally {
    proto.query = query;
  }
  return sent.filter((text) => text !== CONNECTION_SET_UP);
}

test('BEGIN travels with the first statement, a marked statement with the COMMIT: two messages for four statements', async () => {
  const sent = await messagesDuring(() =>
    em().transactional(async (tx) => {
      const rows = await inTx(tx as EntityManager, `select 41 + 1 as v`);
      expect(rows).toEqual([{ v: 42 }]);
      await inTx(tx as EntityManager, `${SENT_WITH_NEXT}insert into pipelining_t values (1, 'one')`, 'run');
    }),
  );
  expect(sent).toHaveLength(2);
  expect(sent[0]).toMatch(/^BEGIN;\s*select 41 \+ 1/);
  expect(sent[1]).toMatch(/insert into pipelining_t values \(1, 'one'\);\s*COMMIT;$/);
  expect(await notes(1, 1)).toEqual(['1:one']);
});

test('a marked statement carried by a read: the read sees it, and its answer is the read alone', async () => {
  await em().transactional(async (tx) => {
    await inTx(tx as EntityManager, `${SENT_WITH_NEXT}insert into pipelining_t values (2, 'two')`, 'run');
    const rows = await inTx(tx as EntityManager, `select note from pipelining_t where id = 2`);
    expect(rows).toEqual([{ note: 'two' }]);
  });
  expect(await notes(2, 2)).toEqual(['2:two']);
});

test('a rolled-back transaction leaves nothing, whether or not its statements left', async () => {
  await expect(
    em().transactional(async (tx) => {
      await inTx(tx as EntityManager, `insert into pipelining_t values (3, 'sent')`, 'run');
      await inTx(tx as EntityManager, `${SENT_WITH_NEXT}insert into pipelining_t values (4, 'held')`, 'run');
      throw new Error('changed my mind');
    }),
  ).rejects.toThrow('changed my mind');
  await expect(
    em().transactional(async () => {
      throw new Error('before any statement');
    }),
  ).rejects.toThrow('before any statement');
  expect(await notes(3, 4)).toEqual([]);
});

test('a failing marked statement fails its transaction at COMMIT, rolls it back, and the connection comes back clean', async () => {
  await sql(`insert into pipelining_t values (5, 'first')`);
  await expect(
    em().transactional(async (tx) => {
      await inTx(tx as EntityManager, `insert into pipelining_t values (6, 'with it')`, 'run');
      await inTx(tx as EntityManager, `${SENT_WITH_NEXT}insert into pipelining_t values (5, 'duplicate')`, 'run');
    }),
  ).rejects.toMatchObject({ code: '23505' });
  expect(await notes(5, 6)).toEqual(['5:first']);
  // Every pooled connection answers plainly (none was left inside an aborted transaction).
  const answers = await Promise.all(Array.from({ length: 12 }, () => em().transactional(async (tx) => inTx(tx as EntityManager, 'select 1 as v'))));
  expect(answers.every((r) => JSON.stringify(r) === '[{"v":1}]')).toBe(true);
});

test('a failing statement carrying BEGIN fails as itself; the transaction is rolled back', async () => {
  await expect(
    em().transactional(async (tx) => {
      await inTx(tx as EntityManager, `insert into pipelining_t values (5, 'duplicate again')`, 'run');
    }),
  ).rejects.toMatchObject({ code: '23505' });
  expect(await notes(5, 5)).toEqual(['5:first']);
  expect(await sql('select 2 as v')).toEqual([{ v: 2 }]);
});

test('outside a transaction a marked statement is sent at once', async () => {
  const sent = await messagesDuring(() => sql(`${SENT_WITH_NEXT}insert into pipelining_t values (7, 'alone')`));
  expect(sent).toHaveLength(1);
  expect(await notes(7, 7)).toEqual(['7:alone']);
});

test('concurrent transactions on many connections each commit whole', async () => {
  await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      em().transactional(async (tx) => {
        const id = 100 + i;
        await inTx(tx as EntityManager, `${SENT_WITH_NEXT}insert into pipelining_t values (${id}, 'first')`, 'run');
        await inTx(tx as EntityManager, `update pipelining_t set note = 'second' where id = ${id}`, 'run');
        await inTx(tx as EntityManager, `${SENT_WITH_NEXT}update pipelining_t set note = note || ' and third' where id = ${id}`, 'run');
      }),
    ),
  );
  expect(await notes(100, 107)).toEqual(Array.from({ length: 8 }, (_, i) => `${100 + i}:second and third`));
});
