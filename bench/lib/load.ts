import os from 'node:os';
import type autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { databaseCpuMs, machineCpuMs, treeCpuMs } from './proc';

export interface LoadResult {
  rps: number;
  p50: number;
  /** autocannon reports no p95; p97.5 is the nearest percentile above it (so a p95 budget checked against it is conservative). */
  p90: number;
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

export const BENCH_SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/**
 * autocannon processes driving the load (bench/lib/cannon.ts), each a child process of its own with
 * a share of the connections: never a thread of the bench's process. One process tops out near
 * 1.6k req/s for 50 KB bodies whatever the server, so two spread it over both cores.
 */
export const LOAD_WORKERS = Number(process.env.BENCH_LOAD_PROCS ?? process.env.BENCH_LOAD_WORKERS ?? 2);

interface CannonResult {
  rps: number;
  total: number;
  p50: number;
  p90: number;
  p97_5: number;
  p99: number;
  errors: number;
  non2xx: number;
  cpuMs: number;
}

function cannon(opts: Record<string, unknown>): Promise<CannonResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'cannon.js'), JSON.stringify(opts)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-4000)));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon process exited with ${code}: ${err}`));
      resolve(JSON.parse(out.trim().split('\n').pop()!) as CannonResult);
    });
  });
}

/** One autocannon run (in child processes); the same settings for a case and its baseline. */
export async function load(spec: LoadSpec): Promise<LoadResult> {
  const connections = spec.connections ?? CONNECTIONS;
  // The processes split the connections between them; fewer connections than processes needs fewer processes.
  const procs = Math.max(1, Math.min(LOAD_WORKERS, connections));
  const cpuBefore = spec.serverPid ? treeCpuMs(spec.serverPid) : NaN;
  const machineBefore = machineCpuMs();
  // PostgreSQL: only the backends of the server's own database (never every postgres process on the machine).
  const postgresCpu = () => (spec.postgresDatabase ? databaseCpuMs(spec.postgresDatabase) : 0);
  const pgBefore = postgresCpu();
  const wallBefore = performance.now();
  const base = {
    url: spec.url,
    method: spec.method ?? 'GET',
    headers: spec.headers,
    body: spec.body,
    requests: spec.requests,
    idReplacement: spec.idReplacement,
    timeout: 30,
  };
  const runs = await Promise.all(
    Array.from({ length: procs }, (_, i) => {
      const share = Math.floor(connections / procs) + (i < connections % procs ? 1 : 0);
      return cannon({
        ...base,
        connections: share,
        ...(spec.amount ? { amount: Math.max(1, Math.round(spec.amount / procs)) } : { duration: spec.durationSeconds ?? BENCH_SECONDS }),
        ...(spec.rate ? { overallRate: Math.max(1, Math.round(spec.rate / procs)) } : {}),
      });
    }),
  );
  const cpuMs = spec.serverPid ? treeCpuMs(spec.serverPid) - cpuBefore : NaN;
  const wallMs = performance.now() - wallBefore;
  const postgresMs = postgresCpu() - pgBefore;
  const machineAfter = machineCpuMs();
  const loadCpu = runs.reduce((s, r) => s + r.cpuMs, 0);
  const count = os.availableParallelism();
  const cores = {
    machine: ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * count,
    count,
    server: cpuMs / wallMs,
    postgres: postgresMs / wallMs,
    loadGenerator: loadCpu / wallMs,
  };
  const answered = runs.reduce((s, r) => s + r.total, 0);
  // Percentiles: the worst of the processes' (each saw a share of the same traffic), so a budget is not flattered.
  const worst = (k: 'p50' | 'p90' | 'p97_5' | 'p99') => Math.max(...runs.map((r) => r[k]));
  return {
    rps: runs.reduce((s, r) => s + r.rps, 0),
    p50: worst('p50'),
    p90: worst('p90'),
    p97_5: worst('p97_5'),
    p99: worst('p99'),
    requests: answered,
    errors: runs.reduce((s, r) => s + r.errors, 0),
    non2xx: runs.reduce((s, r) => s + r.non2xx, 0),
    cpuMsPerRequest: answered > 0 ? cpuMs / answered : NaN,
    postgresCpuMsPerRequest: answered > 0 ? postgresMs / answered : NaN,
    cores,
  };
}
