import os from 'node:os';
import autocannon from 'autocannon';
import { databaseCpuMs, machineCpuMs, namedCpuMs, treeCpuMs } from './proc';

export interface LoadResult {
  rps: number;
  p50: number;
  /** autocannon reports no p95; p97.5 is the nearest percentile above it (so a p95 budget checked against it is conservative). */
  p97_5: number;
  p99: number;
  requests: number;
  errors: number;
  non2xx: number;
  /** CPU (user + system) the server and every process it started spent per answered request, in ms; NaN when no server pid was given. */
  cpuMsPerRequest: number;
  /**
   * CPU PostgreSQL's processes on this machine spent per answered request, in ms (those working in
   * `postgresDatabase` only, when given; 0 on the embedded database, whose process is in the server's tree).
   */
  postgresCpuMsPerRequest: number;
  /**
   * Where the machine's cores went during the run, in cores (1 = one core busy the whole run): all
   * of them, the server's process tree, PostgreSQL's processes (a server on this machine; 0 for the
   * embedded database, which is in the server's tree) and the load generator (this process and its
   * autocannon workers). What bounds a rate when the machine, not the server, is full.
   */
  cores: { machine: number; count: number; server: number; postgres: number; loadGenerator: number };
}

/** "machine 1.96 of 2 cores: server 1.02, PostgreSQL 0.55, load generator 0.31". */
export function fmtCores(c: LoadResult['cores']): string {
  const pg = c.postgres > 0.005 ? `, PostgreSQL ${c.postgres.toFixed(2)}` : '';
  return `machine ${c.machine.toFixed(2)} of ${c.count} cores: server ${Number.isFinite(c.server) ? c.server.toFixed(2) : '–'}${pg}, load generator ${c.loadGenerator.toFixed(2)}`;
}

export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: string;
  /** Cycled in order, one per request (autocannon `requests`). */
  requests?: autocannon.Request[];
  connections?: number;
  durationSeconds?: number;
  /** A fixed number of requests instead of a duration. */
  amount?: number;
  /**
   * Paced load: at most this many requests per second over all connections and workers (autocannon
   * `overallRate`, which each worker applies on its own, so it is divided between them here).
   */
  rate?: number;
  /** Replace `[<id>]` in the body with a unique id per request (autocannon `idReplacement`). */
  idReplacement?: boolean;
  /** The server's pid: its process tree's CPU time is read before and after the run. */
  serverPid?: number;
  /**
   * The PostgreSQL database the server works in, when other servers share the PostgreSQL server: its
   * own backends' CPU is then counted as PostgreSQL's, not every `postgres` process's.
   */
  postgresDatabase?: string;
}

export const BENCH_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/**
 * autocannon worker threads driving the load. One thread tops out near 1.6k req/s for 50 KB bodies
 * whatever the server, which made every server look alike; two spread it over both cores.
 */
export const LOAD_WORKERS = Number(process.env.BENCH_LOAD_WORKERS ?? 2);

/** One autocannon run; the same settings for a case and its baseline. */
export async function load(spec: LoadSpec): Promise<LoadResult> {
  const connections = spec.connections ?? CONNECTIONS;
  // Workers split the connections between them; fewer connections than workers needs fewer workers.
  const workers = Math.min(LOAD_WORKERS, connections);
  const cpuBefore = spec.serverPid ? treeCpuMs(spec.serverPid) : NaN;
  const machineBefore = machineCpuMs();
  const postgresCpu = () => (spec.postgresDatabase ? databaseCpuMs(spec.postgresDatabase) : namedCpuMs('postgres'));
  const pgBefore = postgresCpu();
  const ownBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const r = await autocannon({
    url: spec.url,
    method: spec.method ?? 'GET',
    headers: spec.headers,
    body: spec.body,
    requests: spec.requests,
    connections,
    idReplacement: spec.idReplacement,
    ...(workers > 1 ? { workers } : {}),
    ...(spec.amount ? { amount: spec.amount } : { duration: spec.durationSeconds ?? BENCH_SECONDS }),
    ...(spec.rate ? { overallRate: Math.max(1, Math.round(spec.rate / workers)) } : {}),
    timeout: 30,
  } as autocannon.Options);
  const cpuMs = spec.serverPid ? treeCpuMs(spec.serverPid) - cpuBefore : NaN;
  const wallMs = performance.now() - wallBefore;
  const postgresMs = postgresCpu() - pgBefore;
  const machineAfter = machineCpuMs();
  const own = process.cpuUsage(ownBefore);
  const count = os.availableParallelism();
  const cores = {
    machine: ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * count,
    count,
    server: cpuMs / wallMs,
    postgres: postgresMs / wallMs,
    // process.cpuUsage covers every thread of this process, autocannon's workers included.
    loadGenerator: (own.user + own.system) / 1000 / wallMs,
  };
  const answered = r.requests.total;
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p97_5: r.latency.p97_5,
    p99: r.latency.p99,
    requests: answered,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    cpuMsPerRequest: answered > 0 ? cpuMs / answered : NaN,
    postgresCpuMsPerRequest: answered > 0 ? postgresMs / answered : NaN,
    cores,
  };
}
