import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Database } from '../../domain/database/orm';
import { waitFor } from '../helpers/wait';

/**
 * The embedded database (PGlite) has no autovacuum; the gateway's upkeep gathers statistics and
 * removes dead rows so that the planner reads a page of requirements through its index.
 */
let db: Database;
let dataDir: string;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'upkeep-test-'));
  db = await openDatabase({ dataDir, upkeepIntervalMs: 100 });
});

afterAll(async () => {
  await db?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const sql = <T = any>(text: string) => db.orm.em.getConnection().execute<T[]>(text);
const stats = async () => (await sql(`select last_analyze, last_vacuum, n_dead_tup from pg_stat_user_tables where relname = 'requirements'`))[0];
const PAGE = `select id from requirements where deleted_at is null order by created_at desc, id desc limit 50 offset 0`;
const plan = async () => (await sql(`explain ${PAGE}`)).map((r) => r['QUERY PLAN']).join('\n');

test('an embedded database is upkept: only PostgreSQL servers run their own autovacuum', async () => {
  expect(db.embedded).toBe(true);
  // Connected to PGlite over its private socket, not to whatever answers on localhost:5432.
  expect((await sql(`select version() as v`))[0].v).toMatch(/emscripten|wasm/i);
  expect(db.upkeep).toBeDefined();
});

test('after a bulk insert the statistics are gathered and a page is read through the index, not a whole-table sort', async () => {
  await sql(`insert into requirements (id, title, framework, priority, status, acceptance_criteria, created_at, updated_at)
    select 'req_upkeep_' || g, 'Requirement ' || g, 'gdpr', 'high', 'pending', '["c"]'::jsonb, now() - (g || ' seconds')::interval, now()
    from generate_series(1, 3000) g`);
  await waitFor(async () => (await stats())?.last_analyze);
  expect(await plan()).toContain('requirements_created_at_id_index');
});

test('dead rows past the threshold are vacuumed', async () => {
  expect((await stats()).last_vacuum).toBeNull();
  await sql(`update requirements set title = title || '.' where id like 'req_upkeep_%'`);
  await waitFor(async () => (await stats())?.last_vacuum);
  expect(Number((await stats()).n_dead_tup)).toBeLessThan(50);
});

test('a pass with nothing to do does nothing', async () => {
  await db.upkeep!.runOnce();
  expect(await db.upkeep!.runOnce()).toEqual([]);
});
