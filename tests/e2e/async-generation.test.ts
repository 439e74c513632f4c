import { createStandaloneDatabase } from '../helpers/database';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { signatureValid, startWebhookReceiver as startReceiver, type ReceivedDelivery } from '../helpers/webhook-receiver';
import { waitFor as waitUntil } from '../helpers/wait';

/** Generations and their deliveries take a while on a loaded machine. */
const waitFor = <T>(fn: () => T | undefined | Promise<T | undefined>) => waitUntil(fn, 60_000);

/**
 * Asynchronous generation: `POST /api/v1/generate` with `webhook` answers 202 at once, the work runs
 * as a durable job, and a real HTTP receiver gets the outcome signed like the compliance webhooks:
 * normally, after the gateway was restarted in between, and after the receiver was down a while.
 */

function verifySignature(secret: string, a: ReceivedDelivery) {
  const header = String(a.headers['x-service-signature']);
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  expect(m).not.toBeNull();
  expect(a.headers['webhook-timestamp']).toBe(m![1]);
  expect(a.headers['webhook-id']).toEqual(expect.any(String));
  expect(signatureValid(secret, header, a.raw)).toBe(true);
}

const SECRET = 'async-generation-secret-0123456789';

describe('on one gateway', () => {
  let gw: TestGateway;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    gw = await startGateway({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    receiver = await startReceiver();
  }, 120_000);
  afterAll(async () => {
    await gw?.close();
    await receiver?.close();
  });

  test('202 at once, then the outcome arrives signed with the caller headers; the status tells it', async () => {
    const text = 'Asynchronous speech, delivered to a webhook. It has two sentences.';
    const res = await gw.request('/api/v1/generate', {
      method: 'POST',
      json: {
        text,
        options: { provider: 'mock', format: 'mp3' },
        webhook: { url: `${receiver.url}/done/1`, headers: { 'X-Caller': 'abc', Authorization: 'Bearer theirs' }, secret: SECRET },
      },
    });
    expect(res.status).toBe(202);
    const queued: any = await res.json();
    expect(queued).toEqual({ hash: expect.stringMatching(/^[0-9a-f]{64}$/), status: 'queued', statusUrl: `/api/v1/generations/${queued.hash}` });

    const got = await waitFor(() => receiver.received.find((a) => a.path === '/done/1'));
    verifySignature(SECRET, got);
    expect(got.headers['x-caller']).toBe('abc');
    expect(got.headers.authorization).toBe('Bearer theirs');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.body).toEqual({
      hash: queued.hash,
      audioUrl: `/api/v1/audio/${queued.hash}`,
      duration: expect.any(Number),
      cached: false,
      metadata: { provider: 'mock', voice: 'mock-voice-1', generatedAt: expect.any(String), fileSize: expect.any(Number), format: 'mp3' },
    });
    const audio = await gw.request(got.body.audioUrl);
    expect(audio.status).toBe(200);
    expect((await audio.arrayBuffer()).byteLength).toBe(got.body.metadata.fileSize);

    const status: any = await waitFor(async () => {
      const s: any = await (await gw.request(queued.statusUrl)).json();
      return s.webhook?.status === 'delivered' ? s : undefined;
    });
    expect(status).toMatchObject({
      hash: queued.hash,
      status: 'completed',
      audioUrl: got.body.audioUrl,
      cached: false,
      webhook: { status: 'delivered', attempts: 1 },
    });

    // The same request again: still queued (never answered synchronously), now from the cache.
    const again: any = await (
      await gw.request('/api/v1/generate', {
        method: 'POST',
        json: { text, options: { provider: 'mock', format: 'mp3' }, webhook: { url: `${receiver.url}/done/2` } },
      })
    ).json();
    expect(again).toMatchObject({ hash: queued.hash, status: 'queued', webhookSecret: expect.stringMatching(/^whsec_/) });
    const second = await waitFor(() => receiver.received.find((a) => a.path === '/done/2'));
    verifySignature(again.webhookSecret, second);
    expect(second.body).toMatchObject({ hash: queued.hash, cached: true });
  });

  test('a generation that fails is reported to the webhook as {hash, error}', async () => {
    const res = await gw.request('/api/v1/generate', {
      method: 'POST',
      json: {
        text: 'This goes to a provider that is not set up.',
        options: { provider: 'provider_a' },
        webhook: { url: `${receiver.url}/fail`, secret: SECRET },
      },
    });
    expect(res.status).toBe(202);
    const { hash }: any = await res.json();
    const got = await waitFor(() => receiver.received.find((a) => a.path === '/fail'));
    verifySignature(SECRET, got);
    expect(got.body).toEqual({ hash, error: { code: 'PROVIDER_NOT_CONFIGURED', message: expect.any(String) } });
    const status: any = await (await gw.request(`/api/v1/generations/${hash}`)).json();
    expect(status).toMatchObject({ status: 'failed', error: { code: 'PROVIDER_NOT_CONFIGURED' } });
  });

  test('a receiver that is down for a while gets the outcome once it is back (retries with backoff)', async () => {
    for (const queue of [(gw.services as any).speechQueue, (gw.services as any).speechDeliveries])
      Object.assign(queue.settings, { retryBaseMs: 100, maxRetryDelayMs: 400 });
    const down = await startReceiver();
    await down.close();
    const res = await gw.request('/api/v1/generate', {
      method: 'POST',
      json: { text: 'Delivered after the receiver came back.', options: { provider: 'mock' }, webhook: { url: `${down.url}/late`, secret: SECRET } },
    });
    const { statusUrl }: any = await res.json();
    // Refused at least three times while the port is closed, as the status shows.
    const pending: any = await waitFor(async () => {
      const s: any = await (await gw.request(statusUrl)).json();
      return s.webhook?.attempts >= 3 ? s : undefined;
    });
    expect(pending).toMatchObject({ status: 'completed', webhook: { status: 'pending', lastError: expect.any(String) } });
    await down.reopen();
    try {
      const got = await waitFor(() => down.received.find((a) => a.path === '/late'));
      verifySignature(SECRET, got);
      const done: any = await waitFor(async () => {
        const s: any = await (await gw.request(statusUrl)).json();
        return s.webhook?.status === 'delivered' ? s : undefined;
      });
      expect(done.webhook.attempts).toBeGreaterThanOrEqual(4);
      expect(down.received.filter((a) => a.path === '/late')).toHaveLength(1);
    } finally {
      await down.close();
    }
  });

  test('bad webhooks are refused in the envelope before anything is queued', async () => {
    const cases: [unknown, string][] = [
      [{ url: 'ftp://example.com/x' }, 'webhook.url'],
      [{ url: 'not a url' }, 'webhook.url'],
      [{ headers: {} }, 'webhook.url'],
      [{ url: `${receiver.url}/x`, headers: { 'x-service-signature': 'forged' } }, 'webhook.headers.x-service-signature'],
      [{ url: `${receiver.url}/x`, headers: { 'X-Bad': 'a\r\nInjected: 1' } }, 'webhook.headers.X-Bad'],
      [{ url: `${receiver.url}/x`, secret: 'short' }, 'webhook.secret'],
      [{ url: `${receiver.url}/x`, extra: true }, 'webhook'],
    ];
    for (const [webhook, field] of cases) {
      const res = await gw.request('/api/v1/generate', { method: 'POST', json: { text: 'Refused.', webhook } });
      expect(res.status).toBe(400);
      const body: any = await res.json();
      expect(body.error.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(body.error)).toContain(field);
    }
    const unknown = await gw.request(`/api/v1/generations/${'0'.repeat(64)}`);
    expect(unknown.status).toBe(404);
    const malformed = await gw.request('/api/v1/generations/nothex');
    expect(malformed.status).toBe(400);
  });

  test('GraphQL generateAsync and generation, tRPC generateAsync and generation', async () => {
    const gql = async (query: string, variables: Record<string, unknown>) =>
      (await (await gw.request('/graphql', { method: 'POST', json: { query, variables } })).json()) as any;
    const q = await gql(
      `mutation($input: GenerateInput!, $webhook: WebhookTargetInput!) { generateAsync(input: $input, webhook: $webhook) { hash status statusUrl webhookSecret } }`,
      {
        input: { text: 'Queued over GraphQL.', options: { provider: 'MOCK', format: 'WAV' } },
        webhook: { url: `${receiver.url}/gql`, headers: { 'x-from': 'graphql' }, secret: SECRET },
      },
    );
    expect(q.errors).toBeUndefined();
    expect(q.data.generateAsync).toMatchObject({ status: 'QUEUED', webhookSecret: null });
    const got = await waitFor(() => receiver.received.find((a) => a.path === '/gql'));
    verifySignature(SECRET, got);
    expect(got.headers['x-from']).toBe('graphql');
    const st = await waitFor(async () => {
      const r = await gql(`query($h: String!) { generation(hash: $h) { status audioUrl webhook { status } } }`, { h: q.data.generateAsync.hash });
      return r.data?.generation?.webhook?.status === 'DELIVERED' ? r.data.generation : undefined;
    });
    expect(st).toMatchObject({ status: 'COMPLETED', audioUrl: `/api/v1/audio/${q.data.generateAsync.hash}` });
    // A GraphQL generate never takes a webhook silently: synchronous tRPC generate refuses one.
    const refused = await gw.request('/trpc/tts.generate', { method: 'POST', json: { text: 'Sync.', webhook: { url: `${receiver.url}/never` } } });
    expect(refused.status).toBe(400);

    const t = await gw.request('/trpc/tts.generateAsync', {
      method: 'POST',
      json: { text: 'Queued over tRPC.', options: { provider: 'mock' }, webhook: { url: `${receiver.url}/trpc`, secret: SECRET } },
    });
    expect(t.status).toBe(200);
    const queued = ((await t.json()) as any).result.data;
    expect(queued).toMatchObject({ status: 'queued', statusUrl: `/api/v1/generations/${queued.hash}` });
    verifySignature(SECRET, await waitFor(() => receiver.received.find((a) => a.path === '/trpc')));
    const s = await gw.request(`/trpc/tts.generation?input=${encodeURIComponent(JSON.stringify({ hash: queued.hash }))}`);
    expect(((await s.json()) as any).result.data).toMatchObject({ hash: queued.hash, status: 'completed' });
    const ssrf = await gw.request('/trpc/tts.generateAsync', { method: 'POST', json: { text: 'x', webhook: { url: 'gopher://x' } } });
    expect(ssrf.status).toBe(400);
  });
});

test('the SSRF guard refuses webhook URLs on private networks (400 in the envelope)', async () => {
  const strict = await startGateway();
  try {
    for (const url of ['http://127.0.0.1:9/x', 'http://localhost/x', 'http://10.1.2.3/x', 'http://[::1]/x', 'http://169.254.169.254/latest/meta-data']) {
      const res = await strict.request('/api/v1/generate', { method: 'POST', json: { text: 'Refused.', webhook: { url } } });
      expect(res.status).toBe(400);
      const body: any = await res.json();
      expect(body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'webhook.url' } });
    }
  } finally {
    await strict.close();
  }
});

test('a queued generation survives a gateway restart and is delivered by the next instance', async () => {
  const db = await createStandaloneDatabase('gw_async');
  const receiver = await startReceiver();
  let first: TestGateway | undefined;
  let second: TestGateway | undefined;
  try {
    // Slow provider calls, so the first instance is stopped while the job is queued or under way.
    const env = { DATABASE_URL: db.url, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', MOCK_LATENCY_MS: '1500' };
    first = await startGateway(env);
    const res = await first.request('/api/v1/generate', {
      method: 'POST',
      json: { text: 'Survives a restart. Two sentences.', options: { provider: 'mock' }, webhook: { url: `${receiver.url}/restart`, secret: SECRET } },
    });
    expect(res.status).toBe(202);
    const { hash }: any = await res.json();
    await first.close();
    first = undefined;
    const arrivedBeforeRestart = receiver.received.length;

    second = await startGateway(env);
    const got = await waitFor(() => receiver.received.find((a) => a.path === '/restart'));
    expect(arrivedBeforeRestart).toBe(0);
    verifySignature(SECRET, got);
    expect(got.body).toMatchObject({ hash, audioUrl: `/api/v1/audio/${hash}` });
    expect((await second.request(got.body.audioUrl)).status).toBe(200);
    const status: any = await (await second.request(`/api/v1/generations/${hash}`)).json();
    expect(status.status).toBe('completed');
    expect(receiver.received.filter((a) => a.path === '/restart')).toHaveLength(1);
  } finally {
    await first?.close();
    await second?.close();
    await receiver.close();
    await db.drop();
  }
});
