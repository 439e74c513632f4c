import autocannon from 'autocannon';
import { treeCpuMs } from './proc';

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
  /** Replace `[<id>]` in the body with a unique id per request (autocannon `idReplacement`). */
  idReplacement?: boolean;
  /** The server's pid: its process tree's CPU time is read before and after the run. */
  serverPid?: number;
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
    timeout: 30,
  } as autocannon.Options);
  const cpuMs = spec.serverPid ? treeCpuMs(spec.serverPid) - cpuBefore : NaN;
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
  };
}
