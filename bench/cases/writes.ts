/**
 * `BENCH_ONLY=writes`: `POST /v1/requirements` alone (issue #14), on a fresh gateway: writes/s at 20
 * connections, and what one write costs: CPU of the gateway's process and of the processes it
 * started (the embedded database) apart, and SQL statements per write, one at a time and at 20
 * connections (concurrent writes share the audit trail's sealing passes). Against PostgreSQL too when
 * BENCH_DATABASE_URL is set. Quicker than `data` when only the write path is being worked on.
 */
import os from 'node:os';
import { fmtCores, load } from '../lib/load';
import { cpuMs, processTree, sqlCounters, treeRssMb, type Child } from '../lib/proc';
import type { Report } from '../lib/report';

export interface WritesDeps {
  report: Report;
  adminKey: string;
  startGateway: (env: Record<string, string>, name: string) => Promise<Child>;
  stopGateway: (gw: Child) => Promise<void>;
  seconds: number;
}

const spec = (gw: Child, key: string, connections: number) => ({
  url: `${gw.url}/v1/requirements`,
  method: 'POST' as const,
  headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
  body: JSON.stringify({ title: 'Bench write [<id>]', framework: 'gdpr', priority: 'high', acceptanceCriteria: ['Logged'] }),
  idReplacement: true,
  connections,
});

/** One measured run: writes/s, CPU per write of the gateway and of its children, SQL per write. */
async function measure(gw: Child, key: string, connections: number, run: { durationSeconds?: number; amount?: number }) {
  const children = () => processTree(gw.pid).slice(1);
  const sql0 = await sqlCounters(gw);
  const t0 = performance.now();
  const own0 = cpuMs(gw.pid);
  const kids0 = children().reduce((s, p) => s + cpuMs(p), 0);
  const r = await load({ ...spec(gw, key, connections), ...run });
  const wallMs = performance.now() - t0;
  const heldMs = (await sqlCounters(gw)).transactionMs - sql0.transactionMs;
  // The audit seal runs right after the last commits: let it finish before counting.
  await new Promise((res) => setTimeout(res, 300));
  const sql1 = await sqlCounters(gw);
  const sql = sql1.count - sql0.count;
  // Share of the run's wall time with a transaction open (on the embedded database: its one session held).
  const held = heldMs / wallMs;
  const own = cpuMs(gw.pid) - own0;
  const kids = children().reduce((s, p) => s + cpuMs(p), 0) - kids0;
  const n = r.requests;
  return {
    // The table's CPU column: the gateway and every process it started, per write.
    r: { ...r, cpuMsPerRequest: (own + kids) / n },
    line: `${connections} connection(s): ${r.rps.toFixed(0)} writes/s, CPU per write gateway ${(own / n).toFixed(2)} ms + database process ${(kids / n).toFixed(2)} ms, ${(sql / n).toFixed(2)} SQL statements per write, a transaction open ${(held * 100).toFixed(0)} % of the time (${(heldMs / n).toFixed(1)} ms per write), p50 ${r.p50} ms, p97.5 ${r.p97_5} ms, ${n} writes, errors ${r.errors}, non-2xx ${r.non2xx} (${fmtCores(r.cores)})`,
  };
}

export async function runWritesCase(deps: WritesDeps, env: Record<string, string>, db: 'embedded' | 'PostgreSQL') {
  const { report, adminKey: key, seconds } = deps;
  const gw = await deps.startGateway(env, `gateway (writes, ${db})`);
  try {
    await load({ ...spec(gw, key, 20), durationSeconds: 3 });
    const one = await measure(gw, key, 1, { amount: 300 });
    const twenty = await measure(gw, key, 20, { durationSeconds: seconds });
    report.throughput(`POST /v1/requirements, 20 connections (${db}, writes case)`, gw.name, twenty.r, treeRssMb(gw.pid));
    report.note(
      `writes (${db}), load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' / ')}: ${one.line}; ${twenty.line}`,
    );
  } finally {
    await deps.stopGateway(gw);
  }
}
