import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { mintKey, useGateway } from '../helpers/gateway';

/**
 * graphql-ws and keys (issue 35): an unknown or revoked key is an authentication failure, as on
 * HTTP: the socket closes with 4401 Unauthorized (not graphql-ws's 4403 Forbidden); a missing key
 * opens the socket and a protected operation answers AUTHENTICATION_ERROR.
 */
const gw = useGateway();
const wsUrl = () => `${gw.url.replace(/^http/, 'ws')}/graphql`;

interface Outcome {
  results: unknown[];
  closed?: { code: number; reason: string };
}

/** One query over a fresh graphql-ws connection; what came back, and how the socket closed if it did. */
async function queryOverWs(connectionParams: Record<string, unknown>, query: string, options: { url?: string } = {}): Promise<Outcome> {
  const outcome: Outcome = { results: [] };
  const client = createClient({
    url: options.url ?? wsUrl(),
    webSocketImpl: WebSocket,
    connectionParams,
    retryAttempts: 0,
    lazy: true,
    on: { closed: (event) => (outcome.closed = { code: (event as { code: number }).code, reason: (event as { reason: string }).reason }) },
  });
  try {
    await new Promise<void>((resolve) => {
      client.subscribe(
        { query },
        {
          next: (value) => outcome.results.push(value),
          error: (e) => (outcome.results.push({ error: e }), resolve()),
          complete: resolve,
        },
      );
    });
  } finally {
    await client.dispose();
  }
  return outcome;
}

const QUERY = '{ requirements(limit: 1) { data { id } } }';

test('an unknown key closes the socket with 4401 Unauthorized, in connection params (with or without Bearer) or access_token', async () => {
  const unknown = 'sk_unknown_' + 'Q'.repeat(40);
  for (const attempt of [
    () => queryOverWs({ authorization: `Bearer ${unknown}` }, QUERY),
    () => queryOverWs({ authorization: unknown }, QUERY),
    () => queryOverWs({}, QUERY, { url: `${wsUrl()}?access_token=${encodeURIComponent(unknown)}` }),
  ]) {
    const outcome = await attempt();
    expect(outcome.closed).toEqual({ code: 4401, reason: 'The API key is unknown, revoked or expired' });
    expect(outcome.results).toHaveLength(1);
    expect(outcome.results[0]).toHaveProperty('error');
  }
});

test('a revoked key closes the socket with 4401; a valid key is served', async () => {
  const key = await mintKey(gw, { name: 'ws revoked', permissions: ['read:requirements'] });
  const served = await queryOverWs({ authorization: `Bearer ${key.key}` }, QUERY);
  expect(served.results).toEqual([{ data: { requirements: { data: expect.any(Array) } } }]);
  expect((await gw.request(`/v1/auth/api-keys/${key.id}`, { method: 'DELETE' })).status).toBe(200);
  const refused = await queryOverWs({ authorization: `Bearer ${key.key}` }, QUERY);
  expect(refused.closed).toEqual({ code: 4401, reason: 'The API key is unknown, revoked or expired' });
});

test('a missing key opens the socket and a protected operation answers AUTHENTICATION_ERROR', async () => {
  const outcome = await queryOverWs({}, QUERY);
  expect(outcome.closed?.code).not.toBe(4401);
  expect(outcome.closed?.code).not.toBe(4403);
  const first = outcome.results[0] as { errors?: { extensions: { code: string } }[]; error?: { extensions: { code: string } }[] };
  const errors = first.errors ?? first.error;
  expect(errors?.[0].extensions.code).toBe('AUTHENTICATION_ERROR');
});
