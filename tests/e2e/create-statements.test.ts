/**
 * What one create costs the database (issue #36, part 1): `POST /v1/requirements` sends at most four
 * statements (`BEGIN`, the rows with the tally read, the appended rows, `COMMIT`) in at most two round
 * trips, and no sealing transaction of its own (the trail is sealed in batched passes). Counted through
 * the statement taps on knex's hook (statement-tap.ts), on the embedded database and on PostgreSQL
 * when TEST_DATABASE_URL is set. The figures a create measures without its own rows in sight (the
 * tally read shares the statement that inserts them) must equal what the tally triggers wrote.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { listenToStatements, type StatementTap } from '../../domain/database/statement-tap';
import { tallyDeltaOf } from '../../domain/compliance/status/tally-delta';
import { startGateway, type TestGateway } from '../helpers/gateway';

const MAX_STATEMENTS = 4;
const MAX_ROUND_TRIPS = 2;

let gw: TestGateway;
const root = () => gw.db.orm.em as unknown as EntityManager;
const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => root().getConnection().execute<T[]>(text, params);

const create = async (i: number, framework = 'gdpr') => {
  const res = await gw.request('/v1/requirements', {
    method: 'POST',
    json: {
      title: `Multi-factor authentication for logical access to personal data (${i})`,
      description: 'Access is logged and reviewed quarterly; changes are approved, tested and encrypted in transit.',
      framework,
      priority: 'high',
    },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
};

/**
 * What the database was sent for the transaction that inserted a requirement while `work` ran:
 * statements as stated and messages as sent on its connection, from its `BEGIN` to its `COMMIT`
 * (background work on other connections meanwhile, the job poller or a seal pass, is not the create's).
 */
async function createTransactionDuring(work: () => Promise<unknown>): Promise<Record<StatementTap, string[]>> {
  const all: { tap: StatementTap; sql: string; connection: object }[] = [];
  const stop = listenToStatements((tap, sql, connection) => all.push({ tap, sql, connection }));
  try {
    await work();
  } finally {
    stop();
  }
  const insert = all.find((s) => s.tap === 'stated' && s.sql.includes('insert into "requirements"'));
  expect(insert).toBeDefined();
  const mine = all.filter((s) => s.connection === insert!.connection);
  const out: Record<StatementTap, string[]> = { stated: [], sent: [] };
  for (const tap of ['stated', 'sent'] as const) {
    const own = mine.filter((s) => s.tap === tap).map((s) => s.sql);
    const at = own.findIndex((sql) => sql.includes('insert into "requirements"'));
    const begin = own.slice(0, at + 1).findLastIndex((sql) => sql.startsWith('BEGIN'));
    const end = own.findIndex((sql, i) => i >= at && /COMMIT;?$/.test(sql));
    out[tap] = own.slice(begin, end + 1);
  }
  return out;
}

beforeAll(async () => {
  gw = await startGateway();
  // Warm: the webhook subscribers' version and the key are known, the first seal pass has run.
  await create(0);
  await gw.services.auditTrail.sealNow();
});
afterAll(async () => {
  await gw?.close();
});

test(`one create: at most ${MAX_STATEMENTS} statements in at most ${MAX_ROUND_TRIPS} round trips, no seal of its own`, async () => {
  for (const [i, framework] of [
    [1, 'gdpr'],
    [2, 'soc2'],
    [3, 'iso13485'],
  ] as const) {
    const seen = await createTransactionDuring(() => create(i, framework));
    const message = `statements:\n${seen.stated.map((s) => s.slice(0, 160)).join('\n')}`;
    expect({ statements: seen.stated.length, roundTrips: seen.sent.length, message }).toEqual({
      statements: Math.min(seen.stated.length, MAX_STATEMENTS),
      roundTrips: Math.min(seen.sent.length, MAX_ROUND_TRIPS),
      message,
    });
    expect(seen.stated.some((s) => /pg_try_advisory|update audit_trail/.test(s))).toBe(false);
  }
});

test('creates in a burst share their seal passes; every row ends up sealed and the chain intact', async () => {
  const before = gw.services.auditTrail.sealer.stats();
  await Promise.all(Array.from({ length: 20 }, (_, i) => create(100 + i)));
  await gw.services.auditTrail.sealNow();
  const after = gw.services.auditTrail.sealer.stats();
  expect(after.rowsSealed - before.rowsSealed).toBeGreaterThanOrEqual(20);
  expect(after.passes - before.passes).toBeLessThan(10);
  const res = await gw.request('/v1/audit-trail/verify');
  expect(await res.json()).toMatchObject({ intact: true, rows: { unsealed: 0 } });
});

test("what a create counts as its rows' tally equals what the tally triggers wrote, and its snapshot the figures read after it", async () => {
  const id = await create(200, 'soc2');
  const [row] = await sql(`select *, xmin::text as tx from requirements where id = ?`, [id]);
  const written = await sql<{
    kind: string;
    framework: string;
    status: string | null;
    priority: string | null;
    clause: string | null;
    severity: string | null;
    n: number;
    passed: number;
  }>(`select kind, framework, status, priority, clause, severity, n, passed from compliance_tally where xmin::text = ? order by kind, clause`, [row.tx]);
  expect(written.length).toBeGreaterThan(0);
  const stated = tallyDeltaOf('requirements', row).sort((a, b) => a.kind.localeCompare(b.kind) || String(a.clause).localeCompare(String(b.clause)));
  expect(stated).toEqual(written.map((w) => ({ ...w, n: Number(w.n), passed: Number(w.passed) })));
  const [snapshot] = await sql<{ score: number }>(
    `select compliance_score as score from metric_snapshots where framework = 'soc2' order by taken_at desc, id desc limit 1`,
  );
  const now = await gw.services.complianceStatus.measure(root().fork() as EntityManager);
  expect(Number(snapshot.score)).toBe(now.frameworks.soc2.score);
});

test('concurrent creates commit in groups: fewer transactions, every create with its own rows, the figures those of all of them', async () => {
  const inserts: string[] = [];
  const stop = listenToStatements((tap, text) => {
    if (tap === 'stated' && text.includes('insert into "requirements"')) inserts.push(text);
  });
  let ids: string[];
  try {
    ids = await Promise.all(Array.from({ length: 20 }, (_, i) => create(300 + i, i % 2 ? 'soc2' : 'gdpr')));
  } finally {
    stop();
  }
  // Creations that arrived while a transaction was under way rode in the next one (creations.ts).
  expect(inserts.length).toBeLessThan(20);
  expect(new Set(ids).size).toBe(20);
  const stored = await sql<{ id: string; trail: number; activity: number }>(
    `select r.id,
            (select count(*)::int from audit_trail a where a.entity_id = r.id and a.action = 'requirement.create') as trail,
            (select count(*)::int from activity_log l where l.subject_id = r.id) as activity
       from requirements r where r.id in (?)`,
    [ids],
  );
  expect(stored.map((r) => [r.trail, r.activity])).toEqual(ids.map(() => [1, 1]));
  // The last snapshot of each framework holds the figures after every create of the group.
  const now = await gw.services.complianceStatus.measure(root().fork() as EntityManager);
  for (const framework of ['gdpr', 'soc2'] as const) {
    const [snapshot] = await sql<{ score: number }>(
      `select compliance_score as score from metric_snapshots where framework = ? order by taken_at desc, id desc limit 1`,
      [framework],
    );
    expect(Number(snapshot.score)).toBe(now.frameworks[framework].score);
  }
  await gw.services.auditTrail.sealNow();
  const res = await gw.request('/v1/audit-trail/verify');
  expect(await res.json()).toMatchObject({ intact: true, rows: { unsealed: 0 } });
});

test('a create that fails in a group fails alone: the others of its group commit, none of its rows remain', async () => {
  // A trigger of the test's own: it refuses titles marked [reject] and holds the first create of
  // the burst long enough for the others to queue behind its transaction (so they form one group).
  await sql(`create function test_creates_gate() returns trigger language plpgsql as $$
    begin
      if new.title like '%[slow]%' then perform pg_sleep(0.3); end if;
      if new.title like '%[reject]%' then raise exception 'refused by the test'; end if;
      return new;
    end $$`);
  await sql(`create trigger test_creates_gate before insert on requirements for each row execute function test_creates_gate()`);
  const tried: string[] = [];
  const stop = listenToStatements((tap, text) => {
    if (tap === 'stated' && text.includes('insert into "requirements"')) tried.push(text);
  });
  try {
    const post = (title: string) => gw.request('/v1/requirements', { method: 'POST', json: { title, framework: 'gdpr' } });
    const first = post('Grouped first [slow]');
    await new Promise((r) => setTimeout(r, 100));
    const titles = Array.from({ length: 8 }, (_, i) => (i === 3 ? 'Grouped [reject]' : `Grouped ${i}`));
    const answers = await Promise.all([first, ...titles.map(post)]);
    expect(answers.map((a) => a.status)).toEqual([201, ...titles.map((t) => (t.includes('[reject]') ? 500 : 201))]);
    // It was tried with the others, then alone; they committed without it.
    const withOthers = tried.filter((t) => t.includes('[reject]') && t.includes('Grouped 0'));
    const alone = tried.filter((t) => t.includes('[reject]') && !t.includes('Grouped 0'));
    expect([withOthers.length, alone.length]).toEqual([1, 1]);
    const stored = await sql<{ title: string }>(`select title from requirements where title like 'Grouped%' order by title`);
    expect(stored.map((r) => r.title)).toEqual([
      'Grouped 0',
      'Grouped 1',
      'Grouped 2',
      'Grouped 4',
      'Grouped 5',
      'Grouped 6',
      'Grouped 7',
      'Grouped first [slow]',
    ]);
    const [trail] = await sql<{ n: number }>(`select count(*)::int as n from audit_trail where after->>'title' like '%[reject]%'`);
    expect(trail.n).toBe(0);
  } finally {
    stop();
    await sql(`drop trigger test_creates_gate on requirements`);
    await sql(`drop function test_creates_gate()`);
  }
});
