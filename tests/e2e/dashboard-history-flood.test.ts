import { MetricSnapshot } from '../../domain/compliance/dashboard/snapshot.entity';
import { useGateway } from '../helpers/gateway';

/**
 * A flood of assessments writes coalesced snapshots (unchanged numbers within a minute share one row,
 * its time moved to the latest assessment), and dashboard history aggregates in SQL per period: any
 * number of snapshots, never a row cap that hides the newest ones.
 */
const gw = useGateway();

const snapshotCount = (framework: string | null) => (gw.db.orm.em.fork() as any).count(MetricSnapshot, { framework });
const DAY_MS = 86_400_000;

test('a hundred assessments in tRPC batches add at most one snapshot per framework and keep "last assessed" exact', async () => {
  const before = { gdpr: await snapshotCount('gdpr'), overall: await snapshotCount(null) };
  const startedAt = Date.now();
  for (let b = 0; b < 5; b++) {
    const paths = Array.from({ length: 20 }, () => 'compliance.assess').join(',');
    const body = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [String(i), { framework: 'gdpr' }]));
    const res = await gw.request(`/trpc/${paths}?batch=1`, { method: 'POST', json: body });
    expect(res.status).toBe(200);
    const items = (await res.json()) as any[];
    expect(items.every((i) => i.result)).toBe(true);
  }
  expect((await snapshotCount('gdpr')) - before.gdpr).toBeLessThanOrEqual(1);
  expect((await snapshotCount(null)) - before.overall).toBeLessThanOrEqual(1);
  const status: any = await (await gw.request('/v1/compliance/status')).json();
  expect(Date.parse(status.frameworks.gdpr.lastAssessment)).toBeGreaterThanOrEqual(startedAt - 1000);

  // A change of numbers is a new snapshot, then assessed again: still one more.
  const created = await gw.request('/v1/requirements', { method: 'POST', json: { title: 'Export within 30 days', framework: 'gdpr', priority: 'high' } });
  expect(created.status).toBe(201);
  const afterChange = await snapshotCount('gdpr');
  expect(afterChange).toBeGreaterThan(before.gdpr);
  for (let i = 0; i < 5; i++) expect((await gw.request('/api/compliance/gdpr/assess', { method: 'POST' })).status).toBeLessThan(300);
  expect(await snapshotCount('gdpr')).toBe(afterChange);
}, 120_000);

test('history over more than 20,000 snapshots shows the newest readings of every period', async () => {
  const conn = gw.db.orm.em.getConnection();
  const threeDaysAgo = new Date(Date.now() - 3 * DAY_MS);
  // 21,000 old readings of 10 three days ago (oldest first, as a row cap would read them)...
  await conn.execute(
    `insert into metric_snapshots (id, taken_at, framework, compliance_score, requirement_completion, validation_rate)
     select 'snap_flood_' || g, ?::timestamptz + (g || ' milliseconds')::interval, null, 10, 10, 10 from generate_series(1, 21000) g`,
    [threeDaysAgo.toISOString()],
  );
  // ...then one reading of 77 now.
  await conn.execute(
    `insert into metric_snapshots (id, taken_at, framework, compliance_score, requirement_completion, validation_rate) values ('snap_flood_now', ?, null, 77, 55, 33)`,
    [new Date().toISOString()],
  );

  for (const period of ['7d', '30d', '90d', '1y']) {
    const res = await gw.request(`/v1/dashboard/history?metric=compliance_score&period=${period}`);
    expect(res.status).toBe(200);
    const body: any = await res.json();
    const points: { timestamp: string; value: number }[] = body.dataPoints;
    expect(points.at(-1)!.value).toBe(77);
    if (period !== '1y') {
      const day = new Date(Date.UTC(threeDaysAgo.getUTCFullYear(), threeDaysAgo.getUTCMonth(), threeDaysAgo.getUTCDate())).toISOString();
      expect(points.find((p) => p.timestamp === day)?.value).toBe(10);
    }
    // One point per bucket, oldest first.
    const times = points.map((p) => Date.parse(p.timestamp));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(new Set(times).size).toBe(times.length);
  }
  const validation: any = await (await gw.request('/v1/dashboard/history?metric=validation_rate&period=7d')).json();
  expect(validation.dataPoints.at(-1).value).toBe(33);
}, 120_000);
