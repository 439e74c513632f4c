import client from 'prom-client';

/** One registry per gateway instance (tests start several in one process). */
export function createMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const httpRequests = new client.Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and method',
    labelNames: ['route', 'method'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
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
  return { registry, httpRequests, httpDuration, liveSubscribers, webhookDeliveries };
}

export type Metrics = ReturnType<typeof createMetrics>;
