import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Database } from '../../domain/database/orm';
import { MAX_BACKOFF_MS, MIN_BACKOFF_MS, startUpkeep } from '../../domain/database/upkeep';
import { createStandaloneDatabase, testPostgresUrl, type TestDatabase } from '../helpers/database';
import { waitFor } from '../helpers/wait';

/**
 * The gateway gathers planner statistics soon after a bulk change, on any database, so that the
 * planner reads a page of requirements through its index rather than sorting the whole table; it
 * removes dead rows where nothing else does (the embedded PGlite, a server with autovacuum off).
 */
const sqlOf =
  (db: Database) =>
  <T = any>(text: string) =>
    db.orm.em.getConnection().execute<T[]>(text);
const PAGE = `select id from requirements where deleted_at is null order by created_at desc, id desc limit 50 offset 0`;

interface Setup {
  name: string;
  open(): Promise<{ db: Database; cleanup(): Promise<void> }>;
}

const SETUPS: Setup[] = [
  {
    name: 'the embedded database',
    async open() {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'upkeep-test-'));
      const db = await openDatabase({ dataDir, upkeepIntervalMs: 100 });
      return {
        db,
        cleanup: async () => {
          await db.close();
          fs.rmSync(dataDir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    // The suite's PostgreSQL server when it has one; else a PGlite reached by URL, which is taken for
    // a server (it reports autovacuum on), so the server's path runs in every suite.
    name: testPostgresUrl() ? 'a PostgreSQL server' : 'a database reached by URL',
    async open() {
      const server: TestDatabase = await createStandaloneDatabase('gw_upkeep');
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'upkeep-test-'));
      const db = await openDatabase({ dataDir, databaseUrl: server.url, upkeepIntervalMs: 100 });
      return {
        db,
        cleanup: async () => {
          await db.close();
          await server.drop();
          fs.rmSync(dataDir, { recursive: true, force: true });
        },
      };
    },
  },
];

describe.each(SETUPS)('upkeep on $name', (setup) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  let sql: ReturnType<typeof sqlOf>;
  const stats = async () => (await sql(`select last_analyze, last_vacuum, n_dead_tup from pg_stat_user_tables where relname = 'requirements'`))[0];
  const plan = async () => (await sql(`explain ${PAGE}`)).map((r) => r['QUERY PLAN']).join('\n');

  beforeAll(async () => {
    ({ db, cleanup } = await setup.open());
    sql = sqlOf(db);
  });
  afterAll(async () => cleanup?.());

  test('vacuums exactly where no autovacuum runs', async () => {
    if (db.embedded) {
      // Connected to PGlite over its private socket, not to whatever answers on localhost:5432.
      expect((await sql(`select version() as v`))[0].v).toMatch(/emscripten|wasm/i);
      expect(db.upkeep.vacuums).toBe(true);
    } else {
      const [{ autovacuum }] = await sql(`select current_setting('autovacuum') as autovacuum`);
      expect(db.upkeep.vacuums).toBe(autovacuum === 'off');
    }
  });

  test('after a bulk insert the statistics are gathered and a page is read through the index, not a whole-table sort', async () => {
    expect((await stats()).last_analyze).toBeNull();
    await sql(`insert into requirements (id, title, framework, priority, status, acceptance_criteria, created_at, updated_at)
      select 'req_upkeep_' || g, 'Requirement ' || g, 'gdpr', 'high', 'pending', '["c"]'::jsonb, now() - (g || ' seconds')::interval, now()
      from generate_series(1, 3000) g`);
    await waitFor(async () => (await stats())?.last_analyze);
    expect(await plan()).toContain('requirements_created_at_id_index');
  });

  test('dead rows past the threshold are vacuumed where nothing else vacuums, and left to autovacuum where it runs', async () => {
    expect((await stats()).last_vacuum).toBeNull();
    const analysedBefore = (await stats()).last_analyze;
    await sql(`update requirements set title = title || '.' where id like 'req_upkeep_%'`);
    if (db.upkeep.vacuums) {
      await waitFor(async () => (await stats())?.last_vacuum);
      expect(Number((await stats()).n_dead_tup)).toBeLessThan(50);
    } else {
      // The update counts as a change to analyse; the dead rows stay for the server's autovacuum.
      await waitFor(async () => {
        const s = await stats();
        return s.last_analyze && s.last_analyze > analysedBefore ? s : undefined;
      });
      expect((await stats()).last_vacuum).toBeNull();
    }
  });

  test('a pass with nothing to do does nothing', async () => {
    await db.upkeep.runOnce();
    expect(await db.upkeep.runOnce()).toEqual([]);
  });
});

describe('a table whose upkeep fails', () => {
  // The server's side is stood in for: what is under test is when the upkeep tries again.
  const TABLES = [
    { relname: 'huge', n_live_tup: 1000, n_dead_tup: 900, n_mod_since_analyze: 0 },
    { relname: 'requirements', n_live_tup: 1000, n_dead_tup: 0, n_mod_since_analyze: 500 },
  ];
  function fakeServer(failing: Set<string>) {
    const statements: string[] = [];
    const connection = {
      execute: async (sql: string) => {
        if (sql.startsWith('select')) return TABLES;
        statements.push(sql);
        if ([...failing].some((t) => sql.includes(`"${t}"`))) throw new Error('canceling statement due to statement timeout');
        return [];
      },
    };
    return { orm: { em: { getConnection: () => connection } } as any, statements };
  }

  test('is tried again after a back-off that doubles, while the other tables are still done', async () => {
    let clock = 0;
    const errors: unknown[] = [];
    const server = fakeServer(new Set(['huge']));
    const upkeep = startUpkeep(server.orm, { vacuum: true, intervalMs: 3_600_000, clock: { nowMs: () => clock }, onError: (e) => errors.push(e) });
    try {
      expect(await upkeep.runOnce()).toEqual([{ table: 'requirements', action: 'analyze' }]);
      expect(server.statements).toEqual(['vacuum (analyze) "huge"', 'analyze "requirements"']);
      expect(errors).toHaveLength(1);

      clock = MIN_BACKOFF_MS - 1;
      await upkeep.runOnce();
      expect(server.statements.filter((s) => s.includes('huge'))).toHaveLength(1);

      clock = MIN_BACKOFF_MS;
      await upkeep.runOnce();
      expect(server.statements.filter((s) => s.includes('huge'))).toHaveLength(2);

      // Failed twice: the next try waits twice as long.
      clock = MIN_BACKOFF_MS + 2 * MIN_BACKOFF_MS - 1;
      await upkeep.runOnce();
      expect(server.statements.filter((s) => s.includes('huge'))).toHaveLength(2);
      clock = MIN_BACKOFF_MS + 2 * MIN_BACKOFF_MS;
      await upkeep.runOnce();
      expect(server.statements.filter((s) => s.includes('huge'))).toHaveLength(3);
      expect(errors).toHaveLength(3);
    } finally {
      await upkeep.stop();
    }
  });

  test('never waits longer than the maximum', async () => {
    let clock = 0;
    const server = fakeServer(new Set(['huge']));
    const upkeep = startUpkeep(server.orm, { vacuum: true, intervalMs: 3_600_000, clock: { nowMs: () => clock } });
    try {
      for (let i = 0; i < 12; i++) {
        await upkeep.runOnce();
        clock += MAX_BACKOFF_MS;
      }
      // Every pass from the point the doubling reached the maximum tried again.
      expect(server.statements.filter((s) => s.includes('huge')).length).toBe(12);
    } finally {
      await upkeep.stop();
    }
  });
});
