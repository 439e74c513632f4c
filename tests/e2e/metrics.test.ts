import { startFakeVendor, type FakeVendor } from '../helpers/fake-vendor';
import { readSse } from '../helpers/sse';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { KNOWN_OPERATIONS } from '../../schema/generated/operations';

/**
 * `/metrics` over real HTTP after real requests: GraphQL and tRPC carry their operation as the route
 * label (bounded), and speech has its own series (generations, cache tiers, upstream latency, circuit).
 */
let gw: TestGateway;
let vendor: FakeVendor;

beforeAll(async () => {
  // provider_a's vendor is down: its circuit opens after one failed call and stays open for the test.
  vendor = await startFakeVendor(() => ({ status: 503, body: 'down' }));
  gw = await startGateway({
    PROVIDER_A_API_KEY: 'test',
    PROVIDER_A_BASE_URL: vendor.url,
    PROVIDER_MAX_ATTEMPTS: '1',
    PROVIDER_FAILURE_THRESHOLD: '1',
    PROVIDER_COOLDOWN_MS: '3600000',
  });
});
afterAll(async () => {
  await gw?.close();
  await vendor?.close();
});

/** The samples of one metric: labels → value. */
async function scrape(): Promise<{ name: string; labels: Record<string, string>; value: number }[]> {
  const res = await gw.request('/metrics', { auth: null });
  expect(res.status).toBe(200);
  const text = await res.text();
  return text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(l)!;
      const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
      return { name: m[1], labels, value: Number(m[3]) };
    });
}
const value = (samples: Awaited<ReturnType<typeof scrape>>, name: string, labels: Record<string, string>) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);
const routesOf = (samples: Awaited<ReturnType<typeof scrape>>, prefix: string) =>
  new Set(samples.filter((s) => s.name === 'http_requests_total' && s.labels.route.startsWith(prefix)).map((s) => s.labels.route));

const graphql = (body: Record<string, unknown>) => gw.request('/graphql', { method: 'POST', json: body });

test('GraphQL requests are labelled by operation: known names, anonymous, and every other name as "other"', async () => {
  expect(KNOWN_OPERATIONS).toContain('Viewer');
  expect((await graphql({ query: 'query Viewer { viewer { keyId } }' })).status).toBe(200);
  expect((await graphql({ query: 'query Viewer { viewer { keyId } }' })).status).toBe(200);
  expect((await graphql({ query: '{ viewer { keyId } }' })).status).toBe(200);
  // The name chosen by operationName among several operations.
  expect((await graphql({ query: 'query A { viewer { keyId } } query WebhookList { webhooks { id } }', operationName: 'WebhookList' })).status).toBe(200);
  // Names no shipped document has: however many, one label.
  for (let i = 0; i < 30; i++) expect((await graphql({ query: `query Made${i}Up { viewer { keyId } }` })).status).toBe(200);
  // A document that does not parse still names what it claimed to be.
  expect((await graphql({ query: 'query Viewer { viewer {', operationName: 'Viewer' })).status).toBe(400);

  const samples = await scrape();
  expect(value(samples, 'http_requests_total', { route: '/graphql:Viewer', method: 'POST', status: '200' })).toBe(2);
  expect(value(samples, 'http_requests_total', { route: '/graphql:Viewer', method: 'POST', status: '400' })).toBe(1);
  expect(value(samples, 'http_requests_total', { route: '/graphql:anonymous', method: 'POST', status: '200' })).toBe(1);
  expect(value(samples, 'http_requests_total', { route: '/graphql:WebhookList', method: 'POST', status: '200' })).toBe(1);
  expect(value(samples, 'http_requests_total', { route: '/graphql:other', method: 'POST', status: '200' })).toBe(30);
  expect(value(samples, 'http_request_duration_seconds_count', { route: '/graphql:other', method: 'POST' })).toBe(30);
  expect([...routesOf(samples, '/graphql')].sort()).toEqual(['/graphql:Viewer', '/graphql:WebhookList', '/graphql:anonymous', '/graphql:other']);
  expect(value(samples, 'http_requests_total', { route: 'unmatched' })).toBe(0);
});

test('tRPC calls are labelled by procedure; unknown procedures and batches by a fixed label', async () => {
  expect((await gw.request('/trpc/auth.viewer')).status).toBe(200);
  expect((await gw.request(`/trpc/compliance.requirements?input=${encodeURIComponent(JSON.stringify({ limit: 1 }))}`)).status).toBe(200);
  expect((await gw.request('/trpc/no.such.procedure')).status).toBe(404);
  expect((await gw.request('/trpc/auth.viewer,tts.providers?batch=1&input={}')).status).toBe(200);

  const samples = await scrape();
  expect(value(samples, 'http_requests_total', { route: '/trpc:auth.viewer', method: 'GET', status: '200' })).toBe(1);
  expect(value(samples, 'http_requests_total', { route: '/trpc:compliance.requirements', method: 'GET', status: '200' })).toBe(1);
  expect(value(samples, 'http_requests_total', { route: '/trpc:other', method: 'GET', status: '404' })).toBe(1);
  expect(value(samples, 'http_requests_total', { route: '/trpc:batch', method: 'GET', status: '200' })).toBe(1);
  expect([...routesOf(samples, '/trpc')].sort()).toEqual(['/trpc:auth.viewer', '/trpc:batch', '/trpc:compliance.requirements', '/trpc:other']);
  expect(value(samples, 'http_requests_total', { route: 'unmatched' })).toBe(0);
});

test('speech: generations by provider and outcome, cache hits by tier, upstream latency, circuit state', async () => {
  const before = await scrape();
  // Every series exists from the start, at 0.
  expect(value(before, 'tts_generations_total', { provider: 'mock', outcome: 'success' })).toBe(0);
  expect(value(before, 'tts_cache_lookups_total', { tier: 'memory' })).toBe(0);
  for (const provider of ['provider_a', 'provider_b', 'provider_c', 'mock']) expect(value(before, 'tts_circuit_state', { provider })).toBe(0);

  const body = { text: 'Metrics count this sentence.', options: { provider: 'mock' } };
  // A miss (made by the provider), then the hot tier answers the same request.
  expect((await gw.request('/api/v1/generate', { method: 'POST', json: body })).status).toBe(200);
  expect((await gw.request('/api/v1/generate', { method: 'POST', json: body })).status).toBe(200);
  // Progressive generation looks in storage (the disk tier) and finds it there.
  const sse = await gw.request('/api/v1/generate-progressive', { method: 'POST', json: body });
  expect((await readSse(sse)).at(-1)).toMatchObject({ type: 'complete', cached: true });
  // Not cached: not a lookup, but a generation.
  expect((await gw.request('/api/v1/generate', { method: 'POST', json: { ...body, options: { provider: 'mock', cache: false } } })).status).toBe(200);
  // provider_a's vendor fails: an error outcome, and its circuit opens.
  const failed = await gw.request('/api/v1/generate', {
    method: 'POST',
    json: { text: 'The vendor is down.', options: { provider: 'provider_a', voice: 'echo' } },
  });
  expect(failed.status).toBeGreaterThanOrEqual(500);
  expect(vendor.requests.length).toBe(1);

  const after = await scrape();
  expect(value(after, 'tts_generations_total', { provider: 'mock', outcome: 'success' })).toBe(2);
  expect(value(after, 'tts_generations_total', { provider: 'provider_a', outcome: 'error' })).toBe(1);
  expect(value(after, 'tts_generations_total', { provider: 'provider_a', outcome: 'success' })).toBe(0);
  expect(value(after, 'tts_cache_lookups_total', { tier: 'miss' })).toBe(2); // the first mock request and provider_a's
  expect(value(after, 'tts_cache_lookups_total', { tier: 'memory' })).toBe(1);
  expect(value(after, 'tts_cache_lookups_total', { tier: 'disk' })).toBe(1);
  expect(value(after, 'tts_upstream_duration_seconds_count', { provider: 'mock', outcome: 'success' })).toBe(2);
  expect(value(after, 'tts_upstream_duration_seconds_count', { provider: 'provider_a', outcome: 'error' })).toBe(1);
  expect(value(after, 'tts_upstream_duration_seconds_bucket', { provider: 'mock', outcome: 'success', le: '+Inf' })).toBe(2);
  expect(value(after, 'tts_circuit_state', { provider: 'provider_a' })).toBe(2); // open
  expect(value(after, 'tts_circuit_state', { provider: 'mock' })).toBe(0);
  // The REST routes keep their path labels.
  expect(value(after, 'http_requests_total', { route: '/api/v1/generate', method: 'POST', status: '200' })).toBeGreaterThanOrEqual(2);
});
