import WebSocket from 'ws';
import { GRAPHQL_LIMITS } from '../../gateway/graphql';
import { WS_LIMITS } from '../../gateway/live';
import { MAX_BATCH_SIZE, MAX_PAGE_SIZE } from '../../domain/compliance/requirements/requirement.inputs';
import { MAX_TEXT_LENGTH } from '../../domain/tts/request';
import { ADMIN_KEY, graphql, useGateway } from '../helpers/gateway';

/** Every limit answers a clear error that names it. */
const gw = useGateway();

const gql = (query: string) => graphql(gw, query);
const messages = (body: any): string => (body.errors ?? []).map((e: any) => e.message).join(' | ');

function closeOf(ws: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
}
function opened(ws: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
}

describe('REST', () => {
  test('a JSON body over 1 MB is 413 PAYLOAD_TOO_LARGE in the route envelope', async () => {
    const tts = await gw.request('/api/v1/generate', { method: 'POST', json: { text: 'a'.repeat(1_100_000) } });
    expect(tts.status).toBe(413);
    const ttsBody: any = await tts.json();
    expect(ttsBody.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(ttsBody.error.message).toMatch(/1 ?mb/i);
    const compliance = await gw.request('/v1/requirements', { method: 'POST', json: { title: 'x', description: 'd'.repeat(1_100_000) } });
    expect(compliance.status).toBe(413);
    const body: any = await compliance.json();
    expect(body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', requestId: expect.any(String) });
    expect(Array.isArray(body.error.details)).toBe(true);
  });

  test(`text over ${MAX_TEXT_LENGTH} characters is 400 TEXT_TOO_LONG naming the maximum`, async () => {
    for (const path of ['/api/v1/generate', '/api/v1/estimate']) {
      const res = await gw.request(path, { method: 'POST', json: { text: 'a'.repeat(MAX_TEXT_LENGTH + 1), options: { provider: 'mock' } } });
      expect(res.status).toBe(400);
      const body: any = await res.json();
      expect(body.error.code).toBe('TEXT_TOO_LONG');
      expect(body.error.message).toContain(String(MAX_TEXT_LENGTH));
    }
    const atLimit = await gw.request('/api/v1/estimate', { method: 'POST', json: { text: 'a'.repeat(MAX_TEXT_LENGTH), options: { provider: 'mock' } } });
    expect(atLimit.status).toBe(200);
  });

  test(`a list limit above ${MAX_PAGE_SIZE} is 400 naming limit`, async () => {
    const res = await gw.request('/v1/requirements?limit=100000');
    expect(res.status).toBe(400);
    const body: any = await res.json();
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'limit' })]));
    expect((await gw.request(`/v1/requirements?limit=${MAX_PAGE_SIZE}`)).status).toBe(200);
  });

  test(`a batch of ${MAX_BATCH_SIZE + 1} items is 400 naming the batch field`, async () => {
    const item = (i: number) => ({ title: `Requirement ${i}`, framework: 'ISO27001', priority: 'medium' });
    const res = await gw.request('/v1/requirements/batch', {
      method: 'POST',
      json: { requirements: Array.from({ length: MAX_BATCH_SIZE + 1 }, (_, i) => item(i)) },
    });
    expect(res.status).toBe(400);
    const body: any = await res.json();
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'requirements' })]));
    expect(JSON.stringify(body.error)).toContain(String(MAX_BATCH_SIZE));
  });
});

describe('GraphQL', () => {
  test(`depth over ${GRAPHQL_LIMITS.maxDepth} is refused naming the depth limit`, async () => {
    const depth = GRAPHQL_LIMITS.maxDepth + 2;
    const r = await gql(`{ ${'a { '.repeat(depth)}b${' }'.repeat(depth)} }`);
    expect(r.status).toBe(400);
    expect(messages(r.body)).toMatch(new RegExp(`depth limit of ${GRAPHQL_LIMITS.maxDepth}`, 'i'));
  });

  test(`more than ${GRAPHQL_LIMITS.maxAliases} aliases are refused naming the alias limit`, async () => {
    const r = await gql(`{ ${Array.from({ length: GRAPHQL_LIMITS.maxAliases + 5 }, (_, i) => `v${i}: voices`).join(' ')} }`);
    expect(r.status).toBe(400);
    expect(messages(r.body)).toMatch(new RegExp(`aliases limit of ${GRAPHQL_LIMITS.maxAliases}`, 'i'));
  });

  test(`a cost over ${GRAPHQL_LIMITS.maxCost} is refused naming the cost limit`, async () => {
    // Within the depth and token limits, but each level multiplies the cost.
    const level = (d: number): string => (d === 0 ? 'b' : `a { ${level(d - 1)} ${level(d - 1)} }`);
    const r = await gql(`{ ${level(9)} }`);
    expect(r.status).toBe(400);
    expect(messages(r.body)).toMatch(new RegExp(`cost limit of ${GRAPHQL_LIMITS.maxCost}`, 'i'));
  });

  test(`more than ${GRAPHQL_LIMITS.maxTokens} tokens are a 400 naming the token limit`, async () => {
    const r = await gql(`{ ${'voices '.repeat(GRAPHQL_LIMITS.maxTokens + 10)} }`);
    expect(r.status).toBe(400);
    expect(messages(r.body)).toMatch(new RegExp(`${GRAPHQL_LIMITS.maxTokens} tokens`));
    expect(r.body.errors[0].extensions.code).toEqual(expect.any(String));
  });

  test('batched requests (an array body) are rejected', async () => {
    const res = await gw.request('/graphql', { method: 'POST', json: [{ query: '{ voices }' }, { query: '{ voices }' }] });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/batch/i);
  });
});

describe('WebSockets', () => {
  const wsUrl = (path: string) => gw.url.replace(/^http/, 'ws') + path;

  test('graphql-ws closes a message over 64 KiB with 1009', async () => {
    const ws = new WebSocket(wsUrl('/graphql'), 'graphql-transport-ws', { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    await opened(ws);
    const closed = closeOf(ws);
    ws.send(JSON.stringify({ type: 'connection_init', payload: { pad: 'x'.repeat(100 * 1024) } }));
    expect((await closed).code).toBe(1009);
  });

  test(`dashboard socket closes a message over ${WS_LIMITS.maxPayloadBytes / 1024} KiB with 1009`, async () => {
    const ws = new WebSocket(wsUrl('/v1/dashboard/ws'), { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    await opened(ws);
    const closed = closeOf(ws);
    ws.send(JSON.stringify({ type: 'subscribe', events: ['x'.repeat(WS_LIMITS.maxPayloadBytes + 1024)] }));
    expect((await closed).code).toBe(1009);
  });

  test(`dashboard socket closes with 1008 naming the limit past ${WS_LIMITS.messagesPerSecond} messages per second`, async () => {
    const ws = new WebSocket(wsUrl('/v1/dashboard/ws'), { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    await opened(ws);
    const closed = closeOf(ws);
    for (let i = 0; i < WS_LIMITS.messagesPerSecond + 5; i++) ws.send(JSON.stringify({ type: 'ping' }));
    const { code, reason } = await closed;
    expect(code).toBe(1008);
    expect(reason).toContain(String(WS_LIMITS.messagesPerSecond));
  });
});
