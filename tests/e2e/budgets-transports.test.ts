import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { issueKey, startGateway, useGateway, type TestGateway } from '../helpers/gateway';

/**
 * One budget per operation, whatever the transport: a tRPC batch item, a GraphQL root field and a
 * graphql-ws operation each count as one request against the limiter the REST path uses. TTS
 * operations count against the TTS per-IP limit (API_RATE_LIMIT), everything else against the key's
 * plan (standard: 1000 an hour).
 */
const wsUrl = (gw: TestGateway) => `${gw.url.replace(/^http/, 'ws')}/graphql`;

async function wsOnce(gw: TestGateway, query: string, authorization?: string): Promise<any> {
  const client = createClient({
    url: wsUrl(gw),
    webSocketImpl: WebSocket,
    connectionParams: authorization ? { authorization } : undefined,
    retryAttempts: 0,
    lazy: true,
  });
  try {
    return await new Promise((resolve) => {
      let value: unknown;
      client.subscribe({ query }, { next: (v) => (value = v), error: (e) => resolve({ errors: Array.isArray(e) ? e : [e] }), complete: () => resolve(value) });
    });
  } finally {
    await client.dispose();
  }
}

describe('TTS per-IP limit on every transport', () => {
  const gw = useGateway({ API_RATE_LIMIT: '5' });

  test('once REST health is at 429, GraphQL, tRPC and graphql-ws TTS operations of the same IP are 429 too', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await gw.request('/api/v1/health', { auth: null })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);

    const gql = await gw.request('/graphql', {
      method: 'POST',
      auth: null,
      json: { query: 'mutation { generate(input: { text: "Over the limit.", options: { provider: MOCK } }) { hash } }' },
    });
    const gqlBody: any = await gql.json();
    expect(gqlBody.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
    expect(gql.status).toBe(429);
    expect(gql.headers.get('retry-after')).toMatch(/^\d+$/);

    const trpc = await gw.request('/trpc/tts.generate', { method: 'POST', auth: null, json: { text: 'Over the limit.', options: { provider: 'mock' } } });
    expect(trpc.status).toBe(429);
    expect(trpc.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await trpc.json()) as any).error.data.domainCode).toBe('RATE_LIMIT_EXCEEDED');

    const ws = await wsOnce(gw, '{ health { status } }');
    expect(ws.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
    expect(ws.errors[0].extensions.retryAfter).toBeGreaterThan(0);
  });
});

describe('the plan limit per operation', () => {
  let gw: TestGateway;
  let key: string;
  beforeAll(async () => {
    gw = await startGateway();
    key = await issueKey(gw, ['read:compliance']);
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
  });

  const remaining = async () => {
    const res = await gw.request('/v1/frameworks', { auth: key });
    expect(res.status).toBe(200);
    return Number(res.headers.get('x-ratelimit-remaining'));
  };
  const batch = (n: number) => {
    const paths = Array.from({ length: n }, () => 'compliance.frameworks').join(',');
    return gw.request(`/trpc/${paths}?batch=1`, { auth: key });
  };

  test('each tRPC batch item and each GraphQL root field costs one request of the same plan limit REST uses', async () => {
    const start = await remaining();
    expect(start).toBe(999);
    const res = await batch(100);
    expect(res.status).toBe(200);
    expect(await remaining()).toBe(999 - 100 - 1);

    const aliases = Array.from({ length: 20 }, (_, i) => `f${i}: frameworks { id }`).join(' ');
    const gql = await gw.request('/graphql', { method: 'POST', auth: key, json: { query: `{ ${aliases} }` } });
    expect(((await gql.json()) as any).errors).toBeUndefined();
    expect(await remaining()).toBe(999 - 100 - 1 - 20 - 1);

    const ws = await wsOnce(gw, '{ a: frameworks { id } b: frameworks { id } }', key);
    expect(ws.errors).toBeUndefined();
    expect(await remaining()).toBe(999 - 100 - 1 - 20 - 1 - 2 - 1);
  });

  test('a batch larger than 100 calls is refused whole', async () => {
    const res = await batch(101);
    expect(res.status).toBe(400);
  });

  test('a key at 429 gets 429 on every transport, graphql-ws included, and per batch item', async () => {
    let left = await remaining();
    while (left > 100) {
      expect((await batch(100)).status).toBe(200);
      left = await remaining();
    }
    // The last `left` calls of a larger batch pass, the rest are 429 each.
    const res = await batch(left + 5);
    const items = (await res.json()) as any[];
    expect(items.filter((i) => i.result).length).toBe(left);
    expect(items.filter((i) => i.error?.data?.domainCode === 'RATE_LIMIT_EXCEEDED').length).toBe(5);

    expect((await gw.request('/v1/frameworks', { auth: key })).status).toBe(429);
    const gql = await gw.request('/graphql', { method: 'POST', auth: key, json: { query: '{ frameworks { id } }' } });
    expect(gql.status).toBe(429);
    const ws = await wsOnce(gw, '{ frameworks { id } }', key);
    expect(ws.errors?.[0]?.extensions?.code).toBe('RATE_LIMIT_EXCEEDED');
    const single = await gw.request('/trpc/compliance.frameworks', { auth: key });
    expect(single.status).toBe(429);
  }, 60_000);
});
