import autocannon from 'autocannon';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
  non2xx: number;
}

export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
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
}

export const BENCH_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

/** One autocannon run; the same settings for a case and its baseline. */
export async function load(spec: LoadSpec): Promise<LoadResult> {
  const r = await autocannon({
    url: spec.url,
    method: spec.method ?? 'GET',
    headers: spec.headers,
    body: spec.body,
    requests: spec.requests,
    connections: spec.connections ?? CONNECTIONS,
    idReplacement: spec.idReplacement,
    ...(spec.amount ? { amount: spec.amount } : { duration: spec.durationSeconds ?? BENCH_SECONDS }),
    timeout: 30,
  });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}
