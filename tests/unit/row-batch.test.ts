import { RowBatch } from '../../domain/database/row-batch';
import { SENT_WITH_NEXT } from '../../domain/database/statement-pipelining';

/** An EntityManager outside a transaction that records what it is asked to execute. */
function recordingEm() {
  const sent: { sql: string; params: unknown[] }[] = [];
  const em = {
    getTransactionContext: () => undefined,
    getConnection: () => ({
      execute: async (sql: string, params: unknown[]) => {
        sent.push({ sql, params });
        return [];
      },
    }),
  };
  return { em: em as never, sent };
}

test('rows of several tables go in one statement, one insert per table, in the order first seen', async () => {
  const { em, sent } = recordingEm();
  const batch = new RowBatch();
  batch.add('requirements', { id: 'r1', title: 'a' });
  batch.add('audit_trail', { id: 'a1' });
  batch.add('requirements', { id: 'r2', title: 'b' });
  await batch.insert(em);
  expect(sent).toEqual([
    {
      sql: `${SENT_WITH_NEXT}with w0 as (insert into "requirements" ("id", "title") values (?, ?), (?, ?)) insert into "audit_trail" ("id") values (?)`,
      params: ['r1', 'a', 'r2', 'b', 'a1'],
    },
  ]);
  expect(batch.size).toBe(0);
});

test('rows of one table naming other columns get an insert of their own, none lost or misplaced', async () => {
  const { em, sent } = recordingEm();
  const batch = new RowBatch();
  batch.add('requirements', { id: 'r1', title: 'a' });
  batch.add('requirements', { title: 'b', id: 'r2' });
  batch.add('requirements', { id: 'r3' });
  batch.add('requirements', { id: 'r4', title: 'd' });
  expect(batch.size).toBe(4);
  await batch.insert(em);
  expect(sent[0].sql).toBe(
    `${SENT_WITH_NEXT}with w0 as (insert into "requirements" ("id", "title") values (?, ?), (?, ?)), w1 as (insert into "requirements" ("title", "id") values (?, ?)) insert into "requirements" ("id") values (?)`,
  );
  expect(sent[0].params).toEqual(['r1', 'a', 'r4', 'd', 'b', 'r2', 'r3']);
});
