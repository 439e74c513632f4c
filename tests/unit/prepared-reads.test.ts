import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { startEmbeddedPostgres } from '../../domain/database/embedded';
import { openDatabase, type Database } from '../../domain/database/orm';
import { MAX_NAMED_STATEMENTS, preparedRows } from '../../domain/database/prepared-reads';
import { readRequirementPage } from '../../domain/compliance/requirements/requirement.rows';
import { createPostgresDatabase, testPostgresUrl } from '../helpers/database';

/**
 * Hot reads as named prepared statements (prepared-reads.ts): on a PostgreSQL server a list page is
 * prepared once per connection and runs on a generic plan. Where connections share one session (the
 * embedded database; a PGlite reached by URL) and with DATABASE_PREPARED_STATEMENTS=false, nothing is
 * named. Each database is opened with one connection, so `pg_prepared_statements` (per session)
 * shows what that connection holds. The server's cases run in the PostgreSQL suite (TEST_DATABASE_URL).
 */
const cleanups: (() => Promise<void> | void)[] = [];

async function open(kind: 'embedded' | 'postgres' | 'pglite-url', preparedStatements?: boolean): Promise<Database> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prepared-reads-test-'));
  cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  let databaseUrl: string | undefined;
  if (kind === 'postgres') {
    const server = await createPostgresDatabase(testPostgresUrl()!, 'gw_prepared');
    cleanups.push(() => server.drop());
    databaseUrl = server.url;
  } else if (kind === 'pglite-url') {
    const pglite = await startEmbeddedPostgres(path.join(dataDir, 'pglite'));
    cleanups.push(() => pglite.stop());
    databaseUrl = pglite.url;
  }
  const db = await openDatabase({ dataDir, databaseUrl, poolSize: 1, preparedStatements });
  cleanups.push(() => db.close());
  await db.orm.em
    .getConnection()
    .execute(
      `insert into requirements (id, title, framework, status, priority, acceptance_criteria, created_at, updated_at) ` +
        `select 'req_p' || i, 'Prepared ' || i, (array['soc2','gdpr'])[1 + i % 2], 'pending', 'low', '[]'::jsonb, now() - i * interval '1 second', now() from generate_series(1, 30) i`,
    );
  return db;
}

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
}, 60_000);

const fork = (db: Database) => db.orm.em.fork() as EntityManager;
const BY_FRAMEWORK = 'select id from requirements where framework = ? order by created_at desc, id desc limit ?';

/** The named statements the database's one connection holds. */
const namedStatements = (db: Database) =>
  db.orm.em
    .getConnection()
    .execute<{ name: string; statement: string; generic_plans: number; custom_plans: number }[]>(
      `select name, statement, generic_plans::int as generic_plans, custom_plans::int as custom_plans from pg_prepared_statements where name like 'gw\\_%'`,
    );

const page = (db: Database, framework?: string) =>
  readRequirementPage(fork(db), { framework, limit: 5, offset: 0 } as Parameters<typeof readRequirementPage>[1], false);

const describeOnPostgres = testPostgresUrl() ? describe : () => undefined;

describeOnPostgres('on a PostgreSQL server', () => {
  let db: Database;
  beforeAll(async () => {
    db = await open('postgres');
  }, 120_000);

  test('a read is prepared once per connection, answers for each set of values, and runs on a generic plan', async () => {
    const soc2 = await preparedRows<{ id: string }>(fork(db), BY_FRAMEWORK, ['soc2', 3]);
    const gdpr = await preparedRows<{ id: string }>(fork(db), BY_FRAMEWORK, ['gdpr', 2]);
    expect(soc2.map((r) => r.id)).toEqual(['req_p2', 'req_p4', 'req_p6']);
    expect(gdpr.map((r) => r.id)).toEqual(['req_p1', 'req_p3']);
    const named = (await namedStatements(db)).filter((s) => s.statement.includes('where framework = $1'));
    expect(named).toHaveLength(1);
    expect(named[0]).toMatchObject({ generic_plans: 2, custom_plans: 0 });
  });

  test('the list page is a named statement, and its answers follow the filter', async () => {
    const all = await page(db);
    const gdpr = await page(db, 'gdpr');
    expect(all.pagination.total).toBe(30);
    expect(all.data.map((r) => r.id)).toEqual(['req_p1', 'req_p2', 'req_p3', 'req_p4', 'req_p5']);
    expect(gdpr.data.map((r) => r.id)).toEqual(['req_p1', 'req_p3', 'req_p5', 'req_p7', 'req_p9']);
    const lists = (await namedStatements(db)).filter((s) => s.statement.startsWith('select t.page_total'));
    // One statement text without a filter and one with the framework filter.
    expect(lists).toHaveLength(2);
  });

  test('inside a transaction it reads what the transaction wrote', async () => {
    const rows = await fork(db).transactional(async (tx) => {
      await tx.getConnection().execute(`update requirements set framework = 'iso13485' where id = 'req_p2'`, [], 'run', tx.getTransactionContext());
      return preparedRows<{ id: string }>(tx as EntityManager, BY_FRAMEWORK, ['iso13485', 5]);
    });
    expect(rows.map((r) => r.id)).toEqual(['req_p2']);
  });

  test(`at most ${MAX_NAMED_STATEMENTS} texts are named; any further text is sent unnamed and still answers`, async () => {
    const before = (await namedStatements(db)).length;
    for (let i = 0; i < MAX_NAMED_STATEMENTS + 5; i++) {
      const rows = await preparedRows<{ n: number }>(fork(db), `select ?::int + ${i} as n`, [1]);
      expect(rows).toEqual([{ n: 1 + i }]);
    }
    expect(before).toBeGreaterThan(0);
    expect((await namedStatements(db)).length).toBe(MAX_NAMED_STATEMENTS);
  }, 60_000);
});

describeOnPostgres('on a PostgreSQL server with DATABASE_PREPARED_STATEMENTS=false', () => {
  test('nothing is named and the answers are the same', async () => {
    const db = await open('postgres', false);
    const soc2 = await preparedRows<{ id: string }>(fork(db), BY_FRAMEWORK, ['soc2', 3]);
    expect(soc2.map((r) => r.id)).toEqual(['req_p2', 'req_p4', 'req_p6']);
    expect((await page(db)).pagination.total).toBe(30);
    expect(await namedStatements(db)).toEqual([]);
  }, 120_000);
});

describe.each(['embedded', 'pglite-url'] as const)('on %s (one session behind every connection)', (kind) => {
  test('nothing is named and the answers are the same', async () => {
    const db = await open(kind);
    const soc2 = await preparedRows<{ id: string }>(fork(db), BY_FRAMEWORK, ['soc2', 3]);
    expect(soc2.map((r) => r.id)).toEqual(['req_p2', 'req_p4', 'req_p6']);
    const all = await page(db);
    expect(all.data.map((r) => r.id)).toEqual(['req_p1', 'req_p2', 'req_p3', 'req_p4', 'req_p5']);
    expect(await namedStatements(db)).toEqual([]);
  }, 120_000);
});
