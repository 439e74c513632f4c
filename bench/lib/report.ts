import os from 'node:os';
import type { LoadResult } from './load';

type Unit = 'ratio' | 'ms' | 'count' | 'percent' | 'KB' | 'MB' | 'req/s';

interface ThroughputRow {
  caseName: string;
  server: string;
  r: LoadResult;
  rss: number;
}

interface BudgetRow {
  name: string;
  measured: string;
  limit: string;
  pass: boolean;
  reason: string;
}

const fmt = (v: number, unit: Unit) =>
  !Number.isFinite(v)
    ? String(v)
    : unit === 'ratio'
      ? v.toFixed(2)
      : unit === 'percent'
        ? `${(v * 100).toFixed(1)} %`
        : unit === 'ms'
          ? `${v.toFixed(0)} ms`
          : unit === 'KB'
            ? `${v.toFixed(1)} KB`
            : unit === 'MB'
              ? `${v.toFixed(0)} MB`
              : unit === 'req/s'
                ? `${v.toFixed(0)} req/s`
                : String(v);

const cpu = (r: LoadResult) => {
  if (!Number.isFinite(r.cpuMsPerRequest)) return '–';
  const pg = Number.isFinite(r.postgresCpuMsPerRequest) && r.postgresCpuMsPerRequest > 0 ? r.postgresCpuMsPerRequest : 0;
  return pg ? `${(r.cpuMsPerRequest + pg).toFixed(3)} (${r.cpuMsPerRequest.toFixed(3)} + PG ${pg.toFixed(3)})` : r.cpuMsPerRequest.toFixed(3);
};

/** Collects the figures of one run and prints them as Markdown tables (pasteable into RESULTS.md). */
export class Report {
  private readonly rows: ThroughputRow[] = [];
  private readonly budgets: BudgetRow[] = [];
  private readonly notes: string[] = [];

  constructor(private readonly settings: { seconds: number; connections: number; warmup: number; workers: number }) {}

  throughput(caseName: string, server: string, r: LoadResult, rss: number) {
    this.rows.push({ caseName, server, r, rss });
    console.error(
      `[bench] ${caseName} — ${server}: ${r.rps.toFixed(0)} req/s, ${cpu(r)} ms CPU/req, p50 ${r.p50} ms, p97.5 ${r.p97_5} ms, p99 ${r.p99} ms, RSS ${rss.toFixed(1)} MB, errors ${r.errors}, non-2xx ${r.non2xx}`,
    );
  }

  budget(name: string, value: number, op: '>=' | '<=', limit: number, unit: Unit, _runs?: LoadResult[]) {
    const pass = op === '>=' ? value >= limit : value <= limit;
    this.check(name, `${op} ${fmt(limit, unit)}`, fmt(value, unit), pass, pass ? '' : `${fmt(value, unit)} not ${op} ${fmt(limit, unit)}`);
  }

  /** A budget whose figures are text (a ratio with both sides' CPU per request), with the reason of a miss. */
  check(name: string, limit: string, measured: string, pass: boolean, reason = '') {
    this.budgets.push({ name, measured, limit, pass, reason });
    console.error(`[bench] budget ${pass ? 'PASS' : 'MISS'}: ${name}: ${measured} (${limit})${pass ? '' : ` — ${reason}`}`);
  }

  /** A budget that could not be measured (an endpoint absent, no PostgreSQL): a miss, with the reason. */
  unavailable(name: string, limit: string, reason: string) {
    this.check(name, limit, 'not available', false, reason);
  }

  note(text: string) {
    this.notes.push(text);
    console.error(`[bench] ${text}`);
  }

  get failed() {
    return this.budgets.some((b) => !b.pass);
  }

  print() {
    const out: string[] = [];
    out.push(
      `Machine: ${os.cpus().length} CPU (${os.cpus()[0]?.model ?? '?'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, node ${process.version}, ${os.platform()} ${os.release()}`,
    );
    out.push(
      `Settings: ${this.settings.connections} connections, ${this.settings.seconds} s per run after ${this.settings.warmup} s warm-up; client and servers share the machine; load from ${this.settings.workers} autocannon child processes; CPU and RSS count every process a server started.`,
    );
    out.push('');
    out.push('| case | server | req/s | CPU ms/req (tree + own PG db) | p50 ms | p97.5 ms | p99 ms | RSS MB | errors / non-2xx |');
    out.push('|---|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const { caseName, server, r, rss } of this.rows) {
      out.push(
        `| ${caseName} | ${server} | ${r.rps.toFixed(0)} | ${cpu(r)} | ${r.p50} | ${r.p97_5} | ${r.p99} | ${rss.toFixed(1)} | ${r.errors} / ${r.non2xx} |`,
      );
    }
    out.push('');
    out.push('| budget | measured | limit | result |');
    out.push('|---|---|---|---|');
    for (const b of this.budgets) out.push(`| ${b.name} | ${b.measured} | ${b.limit} | ${b.pass ? 'pass' : `**miss**: ${b.reason}`} |`);
    if (this.notes.length) {
      out.push('');
      for (const n of this.notes) out.push(`- ${n}`);
    }
    console.log(out.join('\n'));
  }
}
