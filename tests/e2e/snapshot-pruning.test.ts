/**
 * History snapshots are appended by every change that moves a figure (issue #14: the table grew
 * without bound). Of the days before today only each day's last snapshot can be shown, so the rest
 * are deleted — and every history the dashboard answers is the same before and after.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { clock, clockStartingAt } from '../../domain/clock';
import { useGateway } from '../helpers/gateway';

const sql = (text: string) => (gw.db.orm.em as unknown as EntityManager).getConnection().execute(text) as Promise<any[]>;

const gw = useGateway();

const TODAY = '2027-03-10T12:00:00.000Z';
const DAY = 86_400_000;

async function changeAt(instant: number, i: number) {
  const restore = clock.use(clockStartingAt(instant));
  try {
    const res = await gw.request('/v1/requirements', { method: 'POST', json: { title: `Pruning ${i}`, framework: ['gdpr', 'soc2'][i % 2], priority: 'high' } });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as any;
    expect((await gw.request(`/v1/requirements/${id}`, { method: 'PUT', json: { status: i % 3 ? 'completed' : 'in-progress' } })).status).toBe(200);
  } finally {
    restore();
  }
}

async function histories() {
  const answers: unknown[] = [];
  for (const framework of ['', 'gdpr', 'soc2', 'iso13485'])
    for (const period of ['7d', '30d', '1y'])
      for (const metric of ['compliance_score', 'requirement_completion', 'validation_rate']) {
        const res = await gw.request(`/v1/dashboard/history?period=${period}&metric=${metric}&framework=${framework}`);
        expect(res.status).toBe(200);
        answers.push(await res.json());
      }
  return answers;
}

test('only the last snapshot of each earlier UTC day is kept, and every history answers the same', async () => {
  const t = Date.parse(TODAY);
  let i = 0;
  // Three earlier days (one of them a month's last, across midnight UTC) with several changes each, then today.
  for (const instant of [
    t - 3 * DAY + 1_000,
    t - 3 * DAY + 3_600_000,
    t - 3 * DAY + 7_200_000,
    t - 2 * DAY - 60_000,
    t - 2 * DAY + 60_000,
    t - DAY,
    t - DAY + 5_000,
    t - 60_000,
    t,
  ])
    await changeAt(instant, i++);
  const restore = clock.use(clockStartingAt(t + 60_000));
  try {
    const before = await histories();
    const rowsBefore = (await sql('select count(*)::int as n from metric_snapshots'))[0].n;
    const removed = await gw.services.complianceUpkeep.pruneSnapshots();
    expect(removed).toBeGreaterThan(0);
    expect((await sql('select count(*)::int as n from metric_snapshots'))[0].n).toBe(rowsBefore - removed);
    // At most one row per framework (overall included) and earlier day.
    const perDay = await sql(`select framework, date_trunc('day', taken_at at time zone 'UTC') as day, count(*)::int as n
                                from metric_snapshots where taken_at < '${new Date(Date.UTC(2027, 2, 10)).toISOString()}' group by 1, 2`);
    expect(perDay.length).toBeGreaterThan(0);
    expect(perDay.every((r) => r.n === 1)).toBe(true);
    expect(await histories()).toEqual(before);
    // Today's snapshots are all kept; a second prune finds nothing.
    expect(await gw.services.complianceUpkeep.pruneSnapshots()).toBe(0);
  } finally {
    restore();
  }
});
