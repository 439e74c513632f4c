import { ADMIN_KEY, issueKey, startGateway, useGateway, type TestGateway } from '../helpers/gateway';

/** Secrets at rest, security headers, CORS and production hardening, each checked over real HTTP. */
const gw = useGateway();

test('API keys are stored hashed: the secret appears in no column of api_keys', async () => {
  const secret = await issueKey(gw, ['read:requirements']);
  expect((await gw.request('/v1/requirements', { auth: secret })).status).toBe(200);
  const rows: Record<string, unknown>[] = await (gw.db.orm.em.fork() as any).getConnection().execute('select * from api_keys');
  expect(rows.length).toBeGreaterThan(0);
  const dump = JSON.stringify(rows);
  expect(dump).not.toContain(secret);
  expect(dump).not.toContain(secret.slice(12)); // not even its tail (the stored prefix is for display only)
  expect(dump).not.toContain(ADMIN_KEY);
});

test('helmet headers are present on API answers', async () => {
  const res = await gw.request('/api/v1/health/live', { auth: null });
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  const frameGuard = res.headers.get('x-frame-options') ?? '';
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(/DENY|SAMEORIGIN/i.test(frameGuard) || /frame-ancestors/.test(csp)).toBe(true);
  expect(res.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
  expect(res.headers.get('x-powered-by')).toBeNull();
});

test('API answers carry the API header set; the HTML docs page the document set', async () => {
  const api = await gw.request('/api/v1/voices', { auth: null });
  expect(api.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
  expect(api.headers.get('x-frame-options')).toBe('DENY');
  expect(api.headers.get('referrer-policy')).toBe('no-referrer');
  expect(api.headers.get('cross-origin-opener-policy')).toBeNull(); // meaningful to documents only
  const docs = await gw.request('/api/docs', { auth: null });
  expect(docs.headers.get('content-type')).toMatch(/text\/html/);
  expect(docs.headers.get('content-security-policy')).toContain("script-src 'self'");
  expect(docs.headers.get('cross-origin-opener-policy')).toBe('same-origin');
  expect(docs.headers.get('x-content-type-options')).toBe('nosniff');
});

test('CORS in development allows any origin (preflight answers Access-Control-Allow-Origin)', async () => {
  const res = await fetch(`${gw.url}/v1/requirements`, {
    method: 'OPTIONS',
    headers: { origin: 'https://anything.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
  });
  expect(res.status).toBeLessThan(300);
  expect(res.headers.get('access-control-allow-origin')).toBe('https://anything.example');
});

test('malformed path values and odd ids answer 4xx without stack traces or SQL', async () => {
  for (const path of [
    '/api/v1/audio/%00',
    '/api/v1/audio/%C3%28/metadata',
    '/v1/requirements/%00',
    '/v1/requirements/%FF',
    `/v1/requirements/${'x'.repeat(5000)}`,
    '/api/v1/cache/..%2f..%2f',
  ]) {
    const method = path.startsWith('/api/v1/cache') ? 'DELETE' : 'GET';
    const res = await gw.request(path, { method });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    const text = await res.text();
    expect(text).not.toMatch(/node_modules|\bat \S+ \(|select .* from|knex|MikroORM/i);
  }
});

describe('with CORS_ORIGINS and NODE_ENV=production', () => {
  let prod: TestGateway;
  beforeAll(async () => {
    prod = await startGateway({ NODE_ENV: 'production', CORS_ORIGINS: 'https://app.example' });
  }, 60_000);
  afterAll(async () => {
    await prod?.close();
  });

  test('only the configured origin is allowed', async () => {
    const preflight = (origin: string) =>
      fetch(`${prod.url}/v1/requirements`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
    expect((await preflight('https://app.example')).headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect((await preflight('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();
  });

  test('introspection is rejected and the GraphQL landing page is not served', async () => {
    const res = await prod.request('/graphql', { method: 'POST', json: { query: '{ __schema { types { name } } }' } });
    const body: any = await res.json();
    expect(body.data?.__schema).toBeUndefined();
    expect(body.errors?.[0]?.message).toMatch(/introspection/i);
    const landing = await fetch(`${prod.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(landing.headers.get('content-type') ?? '').not.toMatch(/html/);
    expect(await landing.text()).not.toMatch(/<html/i);
  });
});
