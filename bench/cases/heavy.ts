/**
 * Issue #37: health latency while a 10,000-requirement PDF report renders. Health is probed every
 * 25 ms (one request at a time) for a few seconds on the idle gateway (the baseline, same run), then
 * from the report's request until it completes. Budget: p99 during < 200 ms; the ratio to idle is printed.
 */
import { mapLimit } from '../../domain/util/concurrency';
import type { Child } from '../lib/proc';
import type { Report } from '../lib/report';

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];

async function probeWhile(url: string, until: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  while (!until()) {
    const t = performance.now();
    await (await fetch(`${url}/api/v1/health`)).arrayBuffer();
    latencies.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 25));
  }
  return latencies;
}

export async function runHeavyCase(report: Report, gw: Child, key: string, count = Number(process.env.BENCH_REPORT_ROWS ?? 10_000)) {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const starts: number[] = [];
  for (let s = 0; s < count; s += 100) starts.push(s);
  await mapLimit(starts, 4, async (start) => {
    const requirements = Array.from({ length: Math.min(100, count - start) }, (_, k) => ({
      title: `Report requirement ${start + k}`,
      framework: 'gdpr',
      priority: 'medium',
      acceptanceCriteria: ['c'],
    }));
    const res = await fetch(`${gw.url}/v1/requirements/batch`, { method: 'POST', headers, body: JSON.stringify({ requirements }) });
    if (!res.ok) throw new Error(`batch create → ${res.status}`);
    await res.arrayBuffer();
  });
  const idleUntil = performance.now() + 3000;
  const idle = await probeWhile(gw.url, () => performance.now() > idleUntil);
  const requested = await fetch(`${gw.url}/v1/compliance/reports`, { method: 'POST', headers, body: JSON.stringify({ framework: 'gdpr', format: 'pdf' }) });
  if (requested.status !== 202)
    return report.unavailable('#37 health p99 while a 10,000-requirement report renders', '< 200 ms', `report request answered ${requested.status}`);
  const { reportId } = (await requested.json()) as { reportId: string };
  const t0 = performance.now();
  let status = 'pending';
  let size = 0;
  const poll = (async () => {
    while (status !== 'completed' && status !== 'failed' && performance.now() - t0 < 600_000) {
      await new Promise((r) => setTimeout(r, 250));
      const r = (await (await fetch(`${gw.url}/v1/compliance/reports/${reportId}`, { headers })).json()) as { status: string; size?: number };
      status = r.status;
      size = r.size ?? 0;
    }
  })();
  const during = await probeWhile(gw.url, () => status === 'completed' || status === 'failed' || performance.now() - t0 > 600_000);
  await poll;
  const p = p99(during);
  report.check(
    `#37 health p99 while a ${count}-requirement PDF report renders`,
    '< 200 ms',
    `${p.toFixed(1)} ms over ${during.length} probes (idle p99 ${p99(idle).toFixed(1)} ms, ${(p / p99(idle)).toFixed(1)}x; report ${status} in ${((performance.now() - t0) / 1000).toFixed(1)} s, ${size} B)`,
    p < 200 && status === 'completed',
    status !== 'completed' ? `report ${status}` : `p99 ${p.toFixed(1)} ms`,
  );
}
