import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { graphql, startGateway, type TestGateway } from '../helpers/gateway';

/**
 * GraphQL cost counts list sizes: a field's `limit` multiplies the cost of what is under it (with the
 * variables' values), so twenty aliases of `requirements(limit: 500)` with nested fields are refused
 * before anything runs; and one operation's answer has a size cap.
 */
let gw: TestGateway;
let small: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
  small = await startGateway({ GRAPHQL_MAX_RESULT_BYTES: '4096' });
  for (let i = 0; i < 3; i++) {
    const res = await gw.request('/v1/requirements', { method: 'POST', json: { title: `Costed ${i}`, framework: 'gdpr', acceptanceCriteria: ['one', 'two'] } });
    expect(res.status).toBe(201);
  }
}, 180_000);
afterAll(async () => {
  await gw?.close();
  await small?.close();
});

const NESTED = 'data { id title description status priority acceptanceCriteria createdAt findings { id title severity status evidence } frameworkInfo { id name } } pagination { total }';
const gql = (g: TestGateway, query: string, variables?: Record<string, unknown>) => graphql(g, query, variables);

test('twenty aliases of requirements(limit: 500) with nested fields: 400, refused before running', async () => {
  const aliases = Array.from({ length: 20 }, (_, i) => `r${i}: requirements(limit: 500) { ${NESTED} }`).join(' ');
  const started = Date.now();
  const { status, body } = await gql(gw, `{ ${aliases} }`);
  expect(status).toBe(400);
  expect(body.data ?? null).toBeNull();
  expect(body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
  expect(body.errors[0].extensions.details.cost).toBeGreaterThan(body.errors[0].extensions.details.maxCost);
  expect(body.errors[0].message).toMatch(/limit/);
  expect(Date.now() - started).toBeLessThan(5000);
});

test('the same query with a small page is allowed; the limit in a variable counts with its value', async () => {
  const ok = await gql(gw, `{ requirements(limit: 10) { ${NESTED} } }`);
  expect(ok.body.errors).toBeUndefined();
  expect(ok.body.data.requirements.data.length).toBe(3);

  const query = `query($n: Int) { a: requirements(limit: $n) { ${NESTED} } b: requirements(limit: $n) { ${NESTED} } }`;
  expect((await gql(gw, query, { n: 5 })).body.errors).toBeUndefined();
  const big = await gql(gw, query, { n: 500 });
  expect(big.status).toBe(400);
  expect(big.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
});

test('over graphql-ws the same cost is refused', async () => {
  const client = createClient({ url: `${gw.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: 'test-admin-key-0123456789abcdef' }, retryAttempts: 0, lazy: true });
  try {
    const errors: any = await new Promise((resolve) => {
      client.subscribe({ query: `{ a: requirements(limit: 500) { ${NESTED} } b: requirements(limit: 500) { ${NESTED} } }` }, { next: () => undefined, error: resolve, complete: () => resolve(null) });
    });
    expect(errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
  } finally {
    await client.dispose();
  }
});

test('an answer over the result size cap is a 413 PAYLOAD_TOO_LARGE instead', async () => {
  const { body } = await gql(small, '{ frameworks { id name description requirements { id section title description } } }');
  expect(body.data ?? null).toBeNull();
  expect(body.errors[0].extensions).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
  expect(body.errors[0].extensions.details.maxBytes).toBe(4096);
  const fine = await gql(small, '{ frameworks { id } }');
  expect(fine.body.errors).toBeUndefined();
});
