import client from 'prom-client';
import { PROVIDER_IDS } from '../domain/tts/catalogue';
import type { CircuitState } from '../domain/tts/providers/resilience';
import type { TtsObserver } from '../domain/tts/observer';
import { RequestDurations } from './request-durations';

/**
 * The `route` label of a GraphQL request over HTTP: `/graphql:<operation>` for the operations of the
 * documents this repository ships (schema/generated/operations.ts), `/graphql:anonymous` for an
 * unnamed one, `/graphql:other` for any other name, so what clients send cannot grow the label set.
 */
export function graphqlRouteLabel(known: ReadonlySet<string>, operationName: unknown): string {
  if (operationName === undefined || operationName === null || operationName === '') return '/graphql:anonymous';
  return typeof operationName === 'string' && known.has(operationName) ? `/graphql:${operationName}` : '/graphql:other';
}

/** The `route` label of a tRPC call: `/trpc:<procedure>` for the router's procedures, `/trpc:batch` for a batch, else `/trpc:other`. */
export function trpcRouteLabel(procedures: ReadonlySet<string>, pathWithinTrpc: string): string {
  const path = pathWithinTrpc.replace(/^\/+/, '');
  if (path.includes(',')) return '/trpc:batch';
  return procedures.has(path) ? `/trpc:${path}` : '/trpc:other';
}

/** One registry per gateway instance (tests start several in one process). */
export function createMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  // Requests are counted as plain numbers per series and added to the counter when it is read (a
  // scrape, through prom-client's `collect`): its `inc` hashes and validates the label set each call,
  // a cost every answer would pay.
  const requestCounts = new Map<string, Map<string, Map<number, { labels: { route: string; method: string; status: string }; n: number }>>>();
  const httpRequests = new client.Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
    collect() {
      for (const byMethod of requestCounts.values())
        for (const byStatus of byMethod.values())
          for (const count of byStatus.values()) {
            if (count.n === 0) continue;
            this.inc(count.labels, count.n);
            count.n = 0;
          }
    },
  });
  /** Counts one answered request (route templates only: a bounded set of series). */
  const countRequest = (route: string, method: string, status: number) => {
    let byMethod = requestCounts.get(route);
    if (!byMethod) requestCounts.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    const count = byStatus.get(status);
    if (count) count.n++;
    else byStatus.set(status, { labels: { route, method, status: String(status) }, n: 1 });
  };
  const httpDuration = new RequestDurations().register(registry);
  const liveSubscribers = new client.Gauge({
    name: 'live_subscribers',
    help: 'Open live connections by transport',
    labelNames: ['transport'] as const,
    registers: [registry],
  });
  const webhookDeliveries = new client.Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  // --- speech ---
  const ttsGenerations = new client.Counter({
    name: 'tts_generations_total',
    help: 'Speech generations that went to a provider, by provider and outcome (success or error)',
    labelNames: ['provider', 'outcome'] as const,
    registers: [registry],
  });
  // Counted as plain numbers and added when read, as http_requests_total is: a hit counts one.
  const cacheLookupCounts = { memory: 0, disk: 0, miss: 0 };
  const ttsCacheLookups = new client.Counter({
    name: 'tts_cache_lookups_total',
    help: 'Cached generation requests by where they were answered: memory (hot tier), disk (storage) or miss (a provider made it)',
    labelNames: ['tier'] as const,
    registers: [registry],
    collect() {
      for (const tier of ['memory', 'disk', 'miss'] as const) {
        if (cacheLookupCounts[tier] === 0) continue;
        this.inc({ tier }, cacheLookupCounts[tier]);
        cacheLookupCounts[tier] = 0;
      }
    },
  });
  const ttsUpstreamDuration = new client.Histogram({
    name: 'tts_upstream_duration_seconds',
    help: 'Duration of one upstream provider call (one chunk), by provider and outcome',
    labelNames: ['provider', 'outcome'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  let circuitStates: () => Record<string, CircuitState> = () => ({});
  new client.Gauge({
    name: 'tts_circuit_state',
    help: 'Upstream circuit breaker state by provider: 0 closed, 1 half-open, 2 open',
    labelNames: ['provider'] as const,
    registers: [registry],
    collect() {
      for (const [provider, state] of Object.entries(circuitStates())) this.set({ provider }, CIRCUIT_VALUE[state]);
    },
  });
  const ttsObserver: TtsObserver = {
    generation: (provider, outcome) => ttsGenerations.inc({ provider, outcome }),
    upstreamCall: (provider, outcome, seconds) => ttsUpstreamDuration.observe({ provider, outcome }, seconds),
    cacheLookup: (tier) => void cacheLookupCounts[tier]++,
  };
  // Every label the series can take, at 0 from the start (a rate over a series that appears late is wrong).
  for (const provider of PROVIDER_IDS) for (const outcome of ['success', 'error'] as const) ttsGenerations.inc({ provider, outcome }, 0);
  for (const tier of ['memory', 'disk', 'miss'] as const) ttsCacheLookups.inc({ tier }, 0);

  return {
    registry,
    httpRequests,
    countRequest,
    httpDuration,
    liveSubscribers,
    webhookDeliveries,
    ttsObserver,
    /** Where the circuit gauge reads its states at scrape time (the speech service, once it exists). */
    readCircuitStatesFrom(read: () => Record<string, CircuitState>) {
      circuitStates = read;
    },
  };
}

const CIRCUIT_VALUE: Record<CircuitState, number> = { closed: 0, 'half-open': 1, open: 2 };

export type Metrics = ReturnType<typeof createMetrics>;
