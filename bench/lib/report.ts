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
  value: number;
  op: '>=' | '<=';
  limit: number;
  unit: Unit;
  pass: boolean;
}

const fmt = (v: number, unit: Unit) =>
  !Number.isFinite(v) ? String(v) : unit === 'ratio' ? v.toFixed(2) : unit === 'percent' ? `${(v * 100).toFixed(1)} %` : unit === 'ms' ? `${v.toFixed(0)} ms` : unit === 'KB' ? `${v.toFixed(1)} KB` : unit === 'MB' ? `${v.toFixed(0)} MB` : unit === 'req/s' ? `${v.toFixed(0)} req/s` : String(v);

const cpu = (r: LoadResult) => (Number.isFinite(r.cpuMsPerRequest) ? r.cpuMsPerRequest.toFixed(2) : '–');

/** Collects the figures of one run and prints them as Markdown tables (pasteable into RESULTS.md). */
export class Report {
  private readonly rows: ThroughputRow[] = [];
  private readonly budgets: BudgetRow[] = [];
  private readonly notes: string[] = [];

  constructor(private readonly settings: { seconds: number; connections: number; warmup: number; workers: number }) {}

  throughput(caseName: string, server: string, r: LoadResult, rss: number) {
    this.rows.push({ caseName, server, r, rss });
    console.error(`[bench] ${caseName} — ${server}: ${r.rps.toFixed(0)} req/s, ${cpu(r)} ms CPU/req, p50 ${r.p50} ms, p97.5 ${r.p97_5} ms, p99 ${r.p99} ms, RSS ${rss.toFixed(1)} MB, errors ${r.errors}, non-2xx ${r.non2xx}`);
  }

  budget(name: string, value: number, op: '>=' | '<=', limit: number, unit: Unit, _runs?: LoadResult[]) {
    const pass = op === '>=' ? value >= limit : value <= limit;
    this.budgets.push({ name, value, op, limit, unit, pass });
    console.error(`[bench] budget ${pass ? 'PASS' : 'FAIL'}: ${name}: ${fmt(value, unit)} (${op} ${fmt(limit, unit)})`);
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
    out.push(`Machine: ${os.cpus().length} CPU (${os.cpus()[0]?.model ?? '?'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, node ${process.version}, ${os.platform()} ${os.release()}`);
    out.push(`Settings: ${this.settings.connections} connections, ${this.settings.seconds} s per run after ${this.settings.warmup} s warm-up; client and servers share the machine; load from ${this.settings.workers} autocannon worker threads; CPU and RSS count every process a server started.`);
    out.push('');
    out.push('| case | server | req/s | CPU ms/req | p50 ms | p97.5 ms | p99 ms | RSS MB | errors / non-2xx |');
    out.push('|---|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const { caseName, server, r, rss } of this.rows) {
      out.push(`| ${caseName} | ${server} | ${r.rps.toFixed(0)} | ${cpu(r)} | ${r.p50} | ${r.p97_5} | ${r.p99} | ${rss.toFixed(1)} | ${r.errors} / ${r.non2xx} |`);
    }
    out.push('');
    out.push('| budget | measured | limit | result |');
    out.push('|---|---:|---:|---|');
    for (const b of this.budgets) out.push(`| ${b.name} | ${fmt(b.value, b.unit)} | ${b.op} ${fmt(b.limit, b.unit)} | ${b.pass ? 'pass' : '**FAIL**'} |`);
    if (this.notes.length) {
      out.push('');
      for (const n of this.notes) out.push(`- ${n}`);
    }
    console.log(out.join('\n'));
  }
}
