/**
 * A case and its baseline measured in alternating rounds after a warm-up of each: on a shared machine
 * the load changes from one minute to the next, and a ratio of runs seconds apart is what one can
 * trust. The order within a round alternates too (gateway then baseline, then baseline then gateway,
 * …): a side that always ran first would always meet the other's leftovers (its collector's and its
 * database's work after a run) and any drift of the machine in the same direction. Each side's CPU
 * per request is its process tree's (an embedded database is a child of its server) plus, on
 * PostgreSQL, the backends of its own database. The ratios reported are the medians of the per-round
 * ratios.
 */
import { load, type LoadResult, type LoadSpec } from './load';
import { treeRssMb, type Child } from './proc';
import type { Report } from './report';

export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
/** Whether BENCH_ROUNDS was given: then every pair runs that many rounds, whatever a case asks. */
const ROUNDS_GIVEN = process.env.BENCH_ROUNDS !== undefined;
export const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);

export const median = (xs: number[]) => {
  const s = [...xs].filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** One side of a pair: a server, its load, and the PostgreSQL database whose backends work for it (if any). */
export interface Side {
  server: Child;
  spec: LoadSpec;
  postgresDatabase?: string;
}

export interface PairResult {
  /** Median of the per-round throughput ratios, gateway / baseline. */
  ratio: number;
  /** Median of the per-round CPU-per-request ratios, gateway / baseline. */
  cpuRatio: number;
  /** The round with the median req/s of each side. */
  gateway: LoadResult;
  baseline: LoadResult;
  rounds: string;
}

/** CPU ms per request on one side: its process tree plus its own database's backends. */
export const cpuPerRequest = (r: LoadResult) => r.cpuMsPerRequest + (Number.isFinite(r.postgresCpuMsPerRequest) ? r.postgresCpuMsPerRequest : 0);

/**
 * `warmupSeconds`: each side's warm-up, when a case needs longer than `BENCH_WARMUP_SECONDS` (never
 * shorter). `rounds`: a case's own number of rounds when BENCH_ROUNDS is not given (never fewer
 * than ROUNDS).
 */
export async function measurePair(
  report: Report,
  caseName: string,
  gw: Side,
  base: Side,
  opts: { warmupSeconds?: number; rounds?: number } = {},
): Promise<PairResult> {
  const spec = (s: Side) => ({ ...s.spec, serverPid: s.server.pid, postgresDatabase: s.postgresDatabase });
  const warmup = Math.max(WARMUP_SECONDS, opts.warmupSeconds ?? 0);
  if (warmup > 0) {
    await load({ ...spec(gw), durationSeconds: warmup });
    await load({ ...spec(base), durationSeconds: warmup });
  }
  const g: LoadResult[] = [];
  const b: LoadResult[] = [];
  let gRss = 0;
  let bRss = 0;
  const rounds = ROUNDS_GIVEN ? ROUNDS : Math.max(ROUNDS, opts.rounds ?? 0);
  const runGateway = async () => {
    g.push(await load(spec(gw)));
    gRss = Math.max(gRss, treeRssMb(gw.server.pid));
  };
  const runBaseline = async () => {
    b.push(await load(spec(base)));
    bRss = Math.max(bRss, treeRssMb(base.server.pid));
  };
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      await runGateway();
      await runBaseline();
    } else {
      await runBaseline();
      await runGateway();
    }
  }
  const pick = (rs: LoadResult[]) => {
    const m = median(rs.map((x) => x.rps));
    return rs.reduce((best, r) => (Math.abs(r.rps - m) < Math.abs(best.rps - m) ? r : best));
  };
  const gm = pick(g);
  const bm = pick(b);
  report.throughput(caseName, gw.server.name, gm, gRss);
  report.throughput(`${caseName}: baseline`, base.server.name, bm, bRss);
  return {
    ratio: median(g.map((r, i) => r.rps / b[i].rps)),
    cpuRatio: median(g.map((r, i) => cpuPerRequest(r) / cpuPerRequest(b[i]))),
    gateway: gm,
    baseline: bm,
    rounds: g.map((r, i) => `${r.rps.toFixed(0)}/${b[i].rps.toFixed(0)}`).join(', '),
  };
}

/**
 * The budget line of a pair: throughput ratio against `minRatio` and, when given, the CPU-per-request
 * ratio against `maxCpuRatio`; both sides' CPU per request are printed, and a miss says why.
 */
export function pairBudget(report: Report, name: string, p: PairResult, minRatio: number, maxCpuRatio?: number, extra = '') {
  const reasons: string[] = [];
  if (!(p.ratio >= minRatio)) reasons.push(`throughput ${p.ratio.toFixed(2)}x < ${minRatio}x`);
  if (maxCpuRatio !== undefined && !(p.cpuRatio <= maxCpuRatio)) reasons.push(`CPU/request ${p.cpuRatio.toFixed(2)}x > ${maxCpuRatio}x`);
  if (p.gateway.errors + p.gateway.non2xx > 0) reasons.push(`gateway errors ${p.gateway.errors}, non-2xx ${p.gateway.non2xx}`);
  const detail =
    `${p.ratio.toFixed(2)}x req/s (${p.gateway.rps.toFixed(0)} vs ${p.baseline.rps.toFixed(0)}), CPU/req ${cpuPerRequest(p.gateway).toFixed(3)} vs ${cpuPerRequest(p.baseline).toFixed(3)} ms (${p.cpuRatio.toFixed(2)}x)` +
    `, rounds ${p.rounds}${extra ? `; ${extra}` : ''}`;
  report.check(name, `≥ ${minRatio}x${maxCpuRatio !== undefined ? `, CPU ≤ ${maxCpuRatio}x` : ''}`, detail, reasons.length === 0, reasons.join('; '));
}
