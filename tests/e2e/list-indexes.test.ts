/**
 * Every documented list filter has an index that carries the list's order (issue #36, migration
 * 20261128100000): a filtered page behind many newer rows of other values reads only its own rows.
 * The SQL a REST list sends is captured as it leaves (statement-tap.ts) and EXPLAINed, as the database
 * runs it (a server: prepared, on a generic plan), with the data
 * of the issue's case (many newer gdpr rows, the filtered ones older). On the embedded database, and
 * on PostgreSQL when TEST_DATABASE_URL is set.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { listenToStatements } from '../../domain/database/statement-tap';
import { startGateway, type TestGateway } from '../helpers/gateway';

let gw: TestGateway;
const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
  (gw.db.orm.em as unknown as EntityManager).getConnection().execute<T[]>(text, params);

beforeAll(async () => {
  gw = await startGateway();
  // Older: 60 soc2 requirements (in progress) and findings; newer: 6,000 gdpr ones (pending, open).
  await sql(
    `insert into requirements (id, title, framework, priority, status, acceptance_criteria, clauses, created_at, updated_at)
     select 'req_old_' || g, 'Old ' || g, 'soc2', 'high', 'in-progress', '[]', '[]', now() - interval '1 day' + g * interval '1 ms', now() from generate_series(1, 60) g`,
  );
  await sql(
    `insert into requirements (id, title, framework, priority, status, acceptance_criteria, clauses, created_at, updated_at)
     select 'req_new_' || g, 'New ' || g, 'gdpr', 'medium', 'pending', '[]', '[]', now() + g * interval '1 ms', now() from generate_series(1, 6000) g`,
  );
  for (const [prefix, framework, severity, status, n, age] of [
    ['old', 'soc2', 'high', 'resolved', 60, '1 day'],
    ['new', 'gdpr', 'low', 'open', 6000, '0 days'],
  ] as const) {
    await sql(
      `insert into audit_findings (id, title, framework, severity, status, evidence, resolution, resolved_at, discovered_at, created_at, updated_at)
       select 'fnd_${prefix}_' || g, 'Finding ' || g, '${framework}', '${severity}', '${status}', '[]', ${status === 'resolved' ? `'fixed', now()` : 'null, null'},
              now() - interval '${age}' + g * interval '1 ms', now(), now() from generate_series(1, ${n}) g`,
    );
  }
  await sql('analyze requirements');
  await sql('analyze audit_findings');
}, 120_000);
afterAll(async () => {
  await gw?.close();
});

interface Statement {
  text: string;
  bindings: readonly unknown[];
}

/** The statements a request sent that read `table`'s rows. */
async function readsDuring(path: string, table: string): Promise<Statement[]> {
  const seen: Statement[] = [];
  const stop = listenToStatements((tap, text, _connection, bindings) => {
    if (tap === 'stated' && new RegExp(`from "?${table}"?\\b`).test(text) && /order by/i.test(text)) seen.push({ text, bindings });
  });
  try {
    const res = await gw.request(path);
    expect(res.status).toBe(200);
  } finally {
    stop();
  }
  return seen;
}

const literal = (v: unknown) => (typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);

/**
 * The plan the database runs the statement on. A statement sent with its values bound is, on a
 * server, a named statement on a generic plan (prepared-reads.ts): prepared and explained so here;
 * on the embedded database it is planned for its values.
 */
async function planOf(s: Statement): Promise<string> {
  const em = (gw.db.orm.em as unknown as EntityManager).fork();
  const rows = await em.transactional(async (tx) => {
    const run = (q: string) => tx.getConnection().execute<{ 'QUERY PLAN': string }[]>(q, [], 'all', tx.getTransactionContext());
    if (s.bindings.length === 0) return run(`explain ${s.text}`);
    if (gw.db.embedded) return run(`explain ${s.text.replace(/\$(\d+)/g, (_, n: string) => literal(s.bindings[Number(n) - 1]))}`);
    await run('set local plan_cache_mode = force_generic_plan');
    await run(`prepare list_plan as ${s.text}`);
    const plan = await run(`explain execute list_plan(${s.bindings.map(literal).join(', ')})`);
    await run('deallocate list_plan');
    return plan;
  });
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

test.each([
  ['/v1/requirements?framework=soc2&limit=20', 'requirements', 'requirements_live_framework_created_index'],
  ['/v1/requirements?status=in-progress&limit=20', 'requirements', 'requirements_live_status_created_index'],
  ['/v1/requirements?priority=high&limit=20', 'requirements', 'requirements_live_priority_created_index'],
  ['/v1/requirements?framework=soc2&status=in-progress&limit=20', 'requirements', 'requirements_live_framework_status_created_index'],
  ['/v1/audits/findings?framework=soc2&limit=20', 'audit_findings', 'audit_findings_framework_discovered_index'],
  ['/v1/audits/findings?severity=high&limit=20', 'audit_findings', 'audit_findings_severity_discovered_index'],
  ['/v1/audits/findings?status=resolved&limit=20', 'audit_findings', 'audit_findings_status_discovered_index'],
])('%s reads its %s page through %s', async (path, table, index) => {
  const statements = await readsDuring(path, table);
  expect(statements.length).toBeGreaterThan(0);
  const plans = await Promise.all(statements.map(planOf));
  expect(plans.some((p) => p.includes(index))).toBe(true);
  // The page is read by walking the index in order, not by sorting every matching row.
  const page = plans.find((p) => p.includes(index))!;
  expect(page).not.toMatch(/Seq Scan on (requirements|audit_findings)/);
});
