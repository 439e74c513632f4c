/**
 * The audit seal at eight instances (issue #36, part 1): writers take no lock (their trail rows are
 * inserted unsealed in their own transaction), and eight sealers (as eight instances would run, each
 * with its own sessions) extend the one chain in turns under a try-lock that never waits. Measured
 * while creates run: lock waits seen in `pg_locks` (none may be a writer's), the sealers' time in the
 * lock statement and how often they found it taken. Then every row is sealed once and the chain is
 * intact. On the embedded database, and on PostgreSQL with TEST_DATABASE_URL (where the sessions,
 * and so the lock, are really several).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AuditSealer } from '../../domain/audit/audit-sealer';
import { startGateway, type TestGateway } from '../helpers/gateway';

const INSTANCES = 8;
const WRITERS = 8;
const CREATES_EACH = 10;

let gw: TestGateway;
const root = () => gw.db.orm.em as unknown as EntityManager;

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
});

test(`${WRITERS} writers, ${INSTANCES} sealers: no writer waits on a lock, every row sealed once, the chain intact`, async () => {
  const sealers = Array.from({ length: INSTANCES - 1 }, () => new AuditSealer(root(), { delayMs: 10, onError: (err) => errors.push(err) }));
  const errors: unknown[] = [];
  const all = [gw.services.auditTrail.sealer, ...sealers];
  // Every sealer kicked every 20 ms: far more contention on the seal lock than commits would cause.
  const kicking = setInterval(() => all.forEach((s) => s.kick()), 20);
  const waits: { locktype: string; mode: string; query: string | null }[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const rows = await root()
        .getConnection()
        .execute<{ locktype: string; mode: string; query: string | null }[]>(
          `select l.locktype, l.mode, a.query from pg_locks l left join pg_stat_activity a on a.pid = l.pid where not l.granted`,
        );
      waits.push(...rows);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const before = all.map((s) => s.stats());
  const started = performance.now();
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let i = 0; i < CREATES_EACH; i++) {
        const t = performance.now();
        const res = await gw.request('/v1/requirements', {
          method: 'POST',
          json: { title: `Access reviews are recorded (${w}.${i})`, framework: 'soc2', priority: 'medium' },
        });
        expect(res.status).toBe(201);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = performance.now() - started;
  clearInterval(kicking);
  sampling = false;
  await sampler;
  await Promise.all(all.map((s) => s.sealNow()));
  const after = all.map((s) => s.stats());
  await Promise.all(sealers.map((s) => s.stop()));

  const sum = (k: 'passes' | 'busy' | 'lockMs' | 'rowsSealed') => after.reduce((n, s, i) => n + s[k] - before[i][k], 0);
  const measured = {
    creates: WRITERS * CREATES_EACH,
    elapsedMs: Math.round(elapsed),
    p50CreateMs: Math.round(latencies.sort((a, b) => a - b)[Math.floor(latencies.length / 2)]),
    sealPasses: sum('passes'),
    sealPassesBusy: sum('busy'),
    sealLockStatementMsPerPass: +(sum('lockMs') / Math.max(1, sum('passes'))).toFixed(2),
    rowsSealed: sum('rowsSealed'),
    lockWaitSamples: waits.length,
  };
  console.log(`audit seal at ${INSTANCES} instances: ${JSON.stringify(measured)}`);
  expect(errors).toEqual([]);
  // No writer's statement ever waited on a lock (the sealers take theirs without waiting).
  expect(waits.filter((w) => /requirements|audit_trail|metric_snapshots/.test(w.query ?? '') && !/pg_try_advisory/.test(w.query ?? ''))).toEqual([]);
  expect(waits.filter((w) => w.locktype === 'advisory')).toEqual([]);
  const res = await gw.request('/v1/audit-trail/verify');
  const v = (await res.json()) as { intact: boolean; rows: { total: number; sealed: number; unsealed: number } };
  expect(v).toMatchObject({ intact: true, rows: { unsealed: 0 } });
  expect(v.rows.sealed).toBe(v.rows.total);
  expect(measured.rowsSealed).toBeGreaterThanOrEqual(measured.creates);
});
