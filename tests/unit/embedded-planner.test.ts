import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { readRequirementPage } from '../../domain/compliance/requirements/requirement.rows';
import { openDatabase, type Database } from '../../domain/database/orm';
import { listenToStatements } from '../../domain/database/statement-tap';

/**
 * The embedded database's data sits in memory, and its planner is told so: `random_page_cost` 1.1
 * (embedded-postgres-server.cjs). With PostgreSQL's default of 4, a page of one framework among four
 * taking turns, at 60k rows, was read through the (created_at, id) index, fetching and dropping three
 * rows for each one kept (the bench's filtered list at 100k rows cost 1.21x the unfiltered one); with
 * 1.1 it is read through the (framework, created_at, id) index. A server's planner settings are its
 * operator's: this is the embedded database alone, whatever database the suite runs against.
 */
let db: Database;
let dataDir: string;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'embedded-planner-test-'));
  db = await openDatabase({ dataDir, poolSize: 1 });
  const sql = (text: string) => db.orm.em.getConnection().execute(text);
  await sql(
    `insert into requirements (id, title, framework, status, priority, acceptance_criteria, created_at, updated_at)
     select 'req_mix_' || g, 'Mixed ' || g, (array['iso13485','fda21cfr11','gdpr','soc2'])[1 + g % 4], 'pending', 'medium', '[]'::jsonb,
            now() + g * interval '1 ms', now() from generate_series(1, 60000) g`,
  );
  await sql('analyze requirements');
}, 120_000);

afterAll(async () => {
  await db?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

test('a page of one framework among four taking turns is read through the framework index', async () => {
  const sent: string[] = [];
  const stop = listenToStatements((tap, text) => {
    if (tap === 'stated' && /from requirements where/.test(text)) sent.push(text);
  });
  let page;
  try {
    page = await readRequirementPage(
      db.orm.em.fork() as EntityManager,
      { framework: 'iso13485', limit: 50, offset: 0 } as Parameters<typeof readRequirementPage>[1],
      false,
    );
  } finally {
    stop();
  }
  expect(page.data).toHaveLength(50);
  expect(page.data.every((r) => r.framework === 'iso13485')).toBe(true);
  expect(sent).toHaveLength(1);
  const rows = await db.orm.em.getConnection().execute<{ 'QUERY PLAN': string }[]>(`explain ${sent[0]}`);
  const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
  // The framework is the index's condition, not a filter over another index's rows.
  expect(plan).toMatch(/using requirements_live_framework_created_index on requirements [^\n]*\n\s*Index Cond: [^\n]*framework/);
  expect(plan).not.toMatch(/on requirements [^\n]*\n\s*Filter: [^\n]*framework/);
}, 60_000);
