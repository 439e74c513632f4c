import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { TestGateway } from '../helpers/gateway';
import { startGatewayBehindProxy, type GatewayBehindProxy } from '../helpers/gateway-behind-proxy';
import type { TcpProxy } from '../helpers/tcp-proxy';

/**
 * The database hangs (a relay between gateway and database stops passing bytes but keeps every
 * connection open, as a paused server or a dead network path does). Every transport answers 503
 * SERVICE_UNAVAILABLE with Retry-After within 2 s, and once the database answers again the gateway
 * serves as before without being restarted.
 */
const HANG_MS = 8_000;
let gw: TestGateway;
let proxy: TcpProxy;
let faulty: GatewayBehindProxy | undefined;
let logLines: string[] = [];

beforeAll(async () => {
  // The guard gives up on a silent database after DATABASE_HANG_MS (1 s by default); at 500 ms the
  // "503 within 2 s" below keeps its meaning with room for a busy machine's event-loop lag.
  faulty = await startGatewayBehindProxy('gw_hang', { DATABASE_HANG_MS: '500' });
  ({ gw, proxy, logLines } = faulty);
}, 120_000);
afterAll(async () => {
  await faulty?.close();
});

interface Outcome {
  transport: string;
  status: number;
  code: string | undefined;
  retryAfter: string | null | undefined;
  ms: number;
}

async function rest(): Promise<Outcome> {
  const started = Date.now();
  const res = await gw.request('/v1/requirements');
  const body: any = await res.json().catch(() => null);
  return { transport: 'rest', status: res.status, code: body?.error?.code ?? body?.code, retryAfter: res.headers.get('retry-after'), ms: Date.now() - started };
}

async function restWrite(): Promise<Outcome> {
  const started = Date.now();
  const res = await gw.request('/v1/requirements', { method: 'POST', json: { title: 'During the hang', framework: 'gdpr' } });
  const body: any = await res.json().catch(() => null);
  return {
    transport: 'rest-write',
    status: res.status,
    code: body?.error?.code ?? body?.code,
    retryAfter: res.headers.get('retry-after'),
    ms: Date.now() - started,
  };
}

async function graphql(): Promise<Outcome> {
  const started = Date.now();
  const res = await gw.request('/graphql', { method: 'POST', json: { query: '{ requirements(limit: 5) { data { id } } }' } });
  const body: any = await res.json().catch(() => null);
  const ext = body?.errors?.[0]?.extensions;
  return {
    transport: 'graphql',
    status: ext?.status ?? (body?.data?.requirements ? 200 : res.status),
    code: ext?.code,
    retryAfter: res.headers.get('retry-after'),
    ms: Date.now() - started,
  };
}

async function trpc(): Promise<Outcome> {
  const started = Date.now();
  const res = await gw.request(`/trpc/compliance.requirements?input=${encodeURIComponent(JSON.stringify({ limit: 5 }))}`);
  const body: any = await res.json().catch(() => null);
  return { transport: 'trpc', status: res.status, code: body?.error?.data?.domainCode, retryAfter: res.headers.get('retry-after'), ms: Date.now() - started };
}

async function graphqlWs(): Promise<Outcome> {
  const client = createClient({
    url: `${gw.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: 'test-admin-key-0123456789abcdef' },
    retryAttempts: 0,
    lazy: true,
  });
  const started = Date.now();
  try {
    const result: any = await new Promise((resolve, reject) => {
      let value: unknown;
      client.subscribe({ query: '{ requirements(limit: 5) { data { id } } }' }, { next: (v) => (value = v), error: reject, complete: () => resolve(value) });
    });
    const ext = result?.errors?.[0]?.extensions;
    return {
      transport: 'graphql-ws',
      status: ext?.status ?? (result?.data?.requirements ? 200 : 0),
      code: ext?.code,
      retryAfter: ext?.retryAfter === undefined ? undefined : String(ext.retryAfter),
      ms: Date.now() - started,
    };
  } finally {
    await client.dispose();
  }
}

const ALL = [rest, restWrite, graphql, trpc, graphqlWs];

test('a hung database: 503 with Retry-After within 2 s on every transport, then recovery by itself', async () => {
  for (const call of ALL) {
    const before = await call();
    expect(before.status).toBe(call === restWrite ? 201 : 200);
  }
  expect(proxy.open).toBeGreaterThan(0);

  proxy.pause();
  const hangStarted = Date.now();
  const during: Outcome[] = [];
  // All at once, right as the database stops answering, then one after another.
  during.push(...(await Promise.all(ALL.map((call) => call()))));
  for (const call of ALL) during.push(await call());
  const ready = await gw.request('/api/v1/health/ready');
  expect(Date.now() - hangStarted).toBeLessThan(HANG_MS);
  console.log(`database hang: ${during.map((o) => `${o.transport} ${o.status}/${o.ms}ms`).join(', ')}`);
  for (const o of during) {
    expect({ transport: o.transport, status: o.status, code: o.code }).toEqual({ transport: o.transport, status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(o.retryAfter).toMatch(/^\d+$/);
    expect(o.ms).toBeLessThan(2000);
  }
  expect(ready.status).toBe(503);
  expect((await gw.request('/api/v1/health/live')).status).toBe(200);

  await new Promise((r) => setTimeout(r, Math.max(0, HANG_MS - (Date.now() - hangStarted))));
  proxy.resume();
  const resumed = Date.now();
  let last: Outcome | undefined;
  while (Date.now() - resumed < 15_000) {
    last = await rest();
    if (last.status === 200) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(last?.status).toBe(200);
  console.log(`recovered ${Date.now() - resumed} ms after the database answered again`);
  for (const call of ALL) expect((await call()).status).toBe(call === restWrite ? 201 : 200);
  expect(logLines.some((l) => l.includes('"component":"database-guard"'))).toBe(true);
  expect(logLines.join('')).not.toMatch(/insert into|select .* from/i);
}, 60_000);
