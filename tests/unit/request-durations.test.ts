import client from 'prom-client';
import fc from 'fast-check';
import { DURATION_BUCKETS, RequestDurations } from '../../gateway/request-durations';

/** The same observations into prom-client's own Histogram, for the text it prints. */
function promClientText(observations: [string, string, number][]) {
  const registry = new client.Registry();
  const histogram = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and method',
    labelNames: ['route', 'method'] as const,
    buckets: [...DURATION_BUCKETS],
    registers: [registry],
  });
  for (const [route, method, seconds] of observations) histogram.labels(route, method).observe(seconds);
  return registry;
}

function ourText(observations: [string, string, number][]) {
  const registry = new client.Registry();
  const durations = new RequestDurations().register(registry);
  for (const [route, method, seconds] of observations) durations.observe(route, method, seconds);
  return registry;
}

describe('RequestDurations: the request histogram counted by the gateway, read by prom-client', () => {
  it('prints what a prom-client Histogram prints for the same observations, bounds and edges included', async () => {
    const observations: [string, string, number][] = [
      ['/api/v1/generate', 'POST', 0.0004],
      ['/api/v1/generate', 'POST', 0.001], // on a bound: counted in it (le is "less or equal")
      ['/v1/requirements', 'GET', 0.0123],
      ['/api/v1/generate', 'GET', 7.5],
      ['/graphql:other', 'POST', 42], // above every bound: +Inf only
      ['/v1/requirements', 'GET', 0.25],
    ];
    expect(await ourText(observations).metrics()).toBe(await promClientText(observations).metrics());
    expect(await ourText(observations).getMetricsAsJSON()).toEqual(await promClientText(observations).getMetricsAsJSON());
  });

  it('agrees with prom-client for any observations', async () => {
    const observation = fc.tuple(fc.constantFrom('/a', '/b/{id}', '/graphql:x'), fc.constantFrom('GET', 'POST'), fc.double({ min: 0, max: 20, noNaN: true }));
    await fc.assert(
      fc.asyncProperty(fc.array(observation, { maxLength: 40 }), async (observations) => {
        expect(await ourText(observations).metrics()).toBe(await promClientText(observations).metrics());
      }),
      { numRuns: 100 },
    );
  });

  it('is emptied by the registry reset', async () => {
    const registry = ourText([['/a', 'GET', 0.2]]);
    registry.resetMetrics();
    expect(await registry.metrics()).toBe(await promClientText([]).metrics());
  });
});
