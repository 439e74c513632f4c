import { createClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { clock, clockStartingAt } from '../../domain/clock';
import { ApiKey } from '../../domain/auth/api-key.entity';
import { mintKey, startGateway, type TestGateway } from '../helpers/gateway';
import { readSse } from '../helpers/sse';
import { waitFor as waitUntil } from '../helpers/wait';

/**
 * Issue 11: live channels last only as long as their key. A revoked (also by cascade from an
 * issuer), expired or narrowed key loses its dashboard socket (4401 / 4403), its graphql-ws and tRPC
 * subscriptions (an error, then the end) and its progress streams (an error event), as REST refuses it.
 */
let gw: TestGateway;

beforeAll(async () => {
  // Slow mock chunks: a progressive generation is still running when its key is revoked.
  gw = await startGateway({ MOCK_LATENCY_MS: '400', PRINCIPAL_RECHECK_MS: '500' });
});
afterAll(async () => {
  await gw?.close();
});

const mint = (permissions: string[], extra: Record<string, unknown> = {}, auth?: string) =>
  mintKey(gw, { name: `live ${permissions.join(',')}`, permissions, ...extra }, auth);

const revoke = async (id: string) => expect((await gw.request(`/v1/auth/api-keys/${id}`, { method: 'DELETE' })).status).toBe(200);
const wsUrl = () => gw.url.replace(/^http/, 'ws');

interface OpenSocket {
  socket: WebSocket;
  messages: any[];
  closed: Promise<{ code: number; reason: string }>;
}

/** A dashboard socket, subscribed to every event type, with what it received and how it closed. */
async function dashboard(key: string): Promise<OpenSocket> {
  const socket = new WebSocket(`${wsUrl()}/v1/dashboard/ws`, { headers: { authorization: `Bearer ${key}` } });
  const messages: any[] = [];
  socket.on('message', (raw) => messages.push(JSON.parse(raw.toString())));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  socket.send(JSON.stringify({ type: 'subscribe', events: ['requirement_updated'] }));
  await waitFor(() => messages.some((m) => m.type === 'subscribed'));
  return { socket, messages, closed };
}

interface Subscription {
  client: WsClient;
  results: any[];
  ended: Promise<'complete' | { error: unknown }>;
}

/** A graphql-ws subscription to compliance events, acknowledged by the server before it returns. */
async function gqlSubscription(key: string): Promise<Subscription> {
  let acknowledged!: () => void;
  const ack = new Promise<void>((r) => (acknowledged = r));
  const client = createClient({
    url: `${wsUrl()}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${key}` },
    retryAttempts: 0,
    lazy: false,
    on: { connected: () => acknowledged() },
  });
  const results: any[] = [];
  const ended = new Promise<'complete' | { error: unknown }>((resolve) => {
    client.subscribe(
      { query: 'subscription { complianceEvents { id type } }' },
      { next: (v) => results.push(v), error: (error) => resolve({ error }), complete: () => resolve('complete') },
    );
  });
  await ack;
  // The operation is registered once a query on the same socket has been answered after it.
  await gqlOnSocket(client, '{ __typename }');
  return { client, results, ended };
}

function gqlOnSocket(client: WsClient, query: string): Promise<any[]> {
  const results: any[] = [];
  return new Promise((resolve) => {
    client.subscribe(
      { query },
      { next: (v) => results.push(v), error: (e) => (results.push({ error: e }), resolve(results)), complete: () => resolve(results) },
    );
  });
}

/** A tRPC subscription over SSE; resolves with the whole stream once the server ends it. */
async function trpcSubscription(key: string): Promise<{ text: Promise<string> }> {
  const input = encodeURIComponent(JSON.stringify({ types: ['requirement.updated'] }));
  const res = await gw.request(`/trpc/live.complianceEvents?input=${input}`, { auth: key, headers: { accept: 'text/event-stream' } });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  // Read until the connected event: the subscription is live from then on.
  while (!seen.includes('connected')) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += decoder.decode(value, { stream: true });
  }
  const text = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return seen;
      seen += decoder.decode(value, { stream: true });
    }
  })();
  return { text };
}

const waitFor = (check: () => boolean, what?: string) => waitUntil(check, 60_000, what, 25);

const lastError = (sub: Subscription) => sub.results.at(-1)?.errors?.[0];

test('revoking a key closes its dashboard socket (4401), ends its graphql-ws and tRPC subscriptions with the error, and REST refuses it', async () => {
  const key = await mint(['read:dashboard', 'read:requirements']);
  const bystander = await mint(['read:dashboard']);
  const socket = await dashboard(key.key);
  const other = await dashboard(bystander.key);
  const sub = await gqlSubscription(key.key);
  const trpc = await trpcSubscription(key.key);
  expect(gw.services.principals.size).toBeGreaterThanOrEqual(4);

  await revoke(key.id);

  expect(await socket.closed).toEqual({ code: 4401, reason: 'The API key was revoked' });
  expect(socket.messages.at(-1)).toMatchObject({ type: 'error', data: { code: 'AUTHENTICATION_ERROR', details: { reason: 'revoked' } } });
  expect(await sub.ended).toBe('complete');
  expect(lastError(sub)).toMatchObject({ extensions: { code: 'AUTHENTICATION_ERROR', status: 401 } });
  const stream = await trpc.text;
  expect(stream).toContain('serialized-error');
  expect(stream).toContain('"domainCode":"AUTHENTICATION_ERROR"');

  // Further operations on the still-open graphql-ws connection are refused too.
  const after = await gqlOnSocket(sub.client, '{ frameworks { id } }');
  expect(after[0].errors[0].extensions.code).toBe('AUTHENTICATION_ERROR');
  await sub.client.dispose();
  expect((await gw.request('/v1/dashboard/metrics', { auth: key.key })).status).toBe(401);

  // Another key's socket is untouched.
  expect(other.socket.readyState).toBe(WebSocket.OPEN);
  other.socket.close();
  await other.closed;
});

test('revoking an issuer closes the live channels of its child and grandchild (cascade), including a progress stream', async () => {
  const parent = await mint(['manage:api-keys', 'read:dashboard', 'tts:generate', 'tts:read']);
  const child = await mint(['manage:api-keys', 'read:dashboard', 'tts:generate'], {}, parent.key);
  const grandchild = await mint(['read:dashboard'], {}, child.key);
  const childSocket = await dashboard(child.key);
  const grandchildSocket = await dashboard(grandchild.key);
  const grandchildSub = await gqlSubscription(grandchild.key);

  const text = 'A long text that keeps the slow mock provider busy for a while. '.repeat(150);
  const sse = await gw.request('/api/v1/generate-progressive', {
    method: 'POST',
    auth: child.key,
    json: { text, options: { provider: 'mock', format: 'wav' } },
  });
  expect(sse.status).toBe(200);
  const progress = readSse(sse);
  await waitFor(() => gw.services.principals.size >= 4, 'the progress stream to be watched');

  await revoke(parent.id);

  for (const s of [childSocket, grandchildSocket]) expect((await s.closed).code).toBe(4401);
  expect(await grandchildSub.ended).toBe('complete');
  expect(lastError(grandchildSub).extensions.code).toBe('AUTHENTICATION_ERROR');
  await grandchildSub.client.dispose();
  const events = await progress;
  expect(events.at(-1)).toEqual({ type: 'error', code: 'AUTHENTICATION_ERROR', message: 'The API key was revoked' });
  expect(events.some((e) => e.type === 'complete')).toBe(false);
});

test('an expired key loses its socket and subscriptions when its time comes (clock moved past the expiry)', async () => {
  const parent = await mint(['manage:api-keys', 'read:dashboard'], { expiresIn: '2m' });
  // Issued without an expiry: capped at the parent's, and its live channels end with it.
  const child = await mint(['read:dashboard'], {}, parent.key);
  const socket = await dashboard(child.key);
  const sub = await gqlSubscription(child.key);
  const trpc = await trpcSubscription(child.key);

  const restore = clock.use(clockStartingAt(Date.parse(parent.expiresAt!) + 1_000));
  try {
    expect(await socket.closed).toEqual({ code: 4401, reason: 'The API key has expired' });
    expect(await sub.ended).toBe('complete');
    expect(lastError(sub)).toMatchObject({ extensions: { code: 'AUTHENTICATION_ERROR' } });
    expect(await trpc.text).toContain('AUTHENTICATION_ERROR');
    expect((await gw.request('/v1/dashboard/metrics', { auth: child.key })).status).toBe(401);
  } finally {
    restore();
    await sub.client.dispose();
  }
});

test('a key that loses the permission gets 4403 on its socket and AUTHORIZATION_ERROR on its subscription', async () => {
  const key = await mint(['read:dashboard', 'read:requirements']);
  const socket = await dashboard(key.key);
  const sub = await gqlSubscription(key.key);

  // An operator narrows the key in the database (no API changes a key's permissions).
  await gw.db.orm.em.fork().nativeUpdate(ApiKey, { id: key.id }, { permissions: ['read:requirements'] });

  expect(await socket.closed).toEqual({ code: 4403, reason: "This key lacks the 'read:dashboard' permission" });
  expect(await sub.ended).toBe('complete');
  expect(lastError(sub)).toMatchObject({ extensions: { code: 'AUTHORIZATION_ERROR', status: 403 } });
  await sub.client.dispose();
});

test('the configured admin key is not watched and keeps its socket', async () => {
  const before = gw.services.principals.size;
  const socket = await dashboard('test-admin-key-0123456789abcdef');
  expect(gw.services.principals.size).toBe(before);
  socket.socket.close();
  expect((await socket.closed).code).toBe(1005);
});
