/**
 * The TypeScript client (clients/typescript, as built by `npm ci`) against a real gateway: REST
 * operations, typed errors, progressive generation, webhook verification, the dashboard WebSocket
 * and graphql-ws with reconnect (through a TCP relay the test takes down and brings back).
 */
import {
  AuthenticationError,
  AuthorizationError,
  ConflictError,
  ERROR_STATUS,
  GatewayClient,
  GatewayError,
  GraphqlError,
  InvalidRequestError,
  NotFoundError,
  OPERATIONS,
  RateLimitError,
  ServerError,
  WebhookSignatureError,
  documents,
  errorFor,
  isGatewayError,
  signWebhook,
  verifyWebhook,
  type DashboardEvent,
  type ProgressEvent,
} from '@speech-gateway/client';
import { ADMIN_KEY, issueKey, startGateway, type TestGateway } from '../helpers/gateway';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { startWebhookReceiver } from '../helpers/webhook-receiver';
import { waitFor } from '../helpers/wait';
import { failureOf } from '../helpers/expect-failure';

let gw: TestGateway;
let client: GatewayClient;

beforeAll(async () => {
  gw = await startGateway({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  client = new GatewayClient({ baseUrl: gw.url, apiKey: ADMIN_KEY });
});
afterAll(async () => {
  await client?.close();
  await gw?.close();
});

const expectError = (p: Promise<unknown>) => failureOf(p, GatewayError);

/** Resolves with the next value of an iterator, or fails after `ms`. */
async function nextWithin<T>(it: AsyncIterator<T>, ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no value within ${ms} ms`)), ms)));
  try {
    const r = await Promise.race([it.next(), timeout]);
    if (r.done) throw new Error('iterator ended');
    return r.value;
  } finally {
    clearTimeout(timer);
  }
}

describe('REST', () => {
  it('has one method per operation of the document the gateway serves', async () => {
    const served = (await (await fetch(`${gw.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    const servedOps = Object.entries(served.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ id: op.operationId, method: method.toUpperCase(), path })),
    );
    expect(servedOps.length).toBeGreaterThan(40);
    for (const op of servedOps) {
      expect(OPERATIONS).toHaveProperty(op.id);
      expect(OPERATIONS[op.id as keyof typeof OPERATIONS]).toMatchObject({ method: op.method, path: op.path });
      expect(typeof (client as any)[op.id]).toBe('function');
    }
    expect(Object.keys(OPERATIONS).sort()).toEqual(servedOps.map((o) => o.id).sort());
  });

  it('generates speech, reads the audio bytes, its metadata and whether it exists', async () => {
    const generated = await client.generateSpeech({ text: 'Hello from the TypeScript client.', options: { provider: 'mock', format: 'wav' } });
    const result = generated as { hash: string; audioUrl: string; cached: boolean };
    expect(result.audioUrl).toBe(`/api/v1/audio/${result.hash}`);
    const audio = await client.getAudio(result.hash);
    expect(audio.contentType).toBe('audio/wav');
    expect(Buffer.from(audio.bytes.subarray(0, 4)).toString('latin1')).toBe('RIFF');
    expect(Number(audio.headers.get('content-length'))).toBe(audio.bytes.length);
    const partial = await client.getAudio(result.hash, { headers: { range: 'bytes=0-9' } });
    expect(partial.status).toBe(206);
    expect(partial.bytes.length).toBe(10);
    const meta = (await client.getAudioMetadata(result.hash)) as { provider: string; format: string };
    expect(meta).toMatchObject({ provider: 'mock', format: 'wav' });
    expect(await client.hasAudio(result.hash)).toBe(true);
    expect(await client.hasAudio('0'.repeat(64))).toBe(false);
    const again = (await client.generateSpeech({ text: 'Hello from the TypeScript client.', options: { provider: 'mock', format: 'wav' } })) as {
      cached: boolean;
    };
    expect(again.cached).toBe(true);
  });

  it('OpenAI-compatible speech: the audio bytes, the model list, and OpenAI errors read as the gateway codes', async () => {
    const speech = await client.createSpeech({
      model: 'mock',
      input: 'Hello from the TypeScript client, the OpenAI way.',
      voice: 'mock-voice-2',
      response_format: 'wav',
    });
    expect(speech.contentType).toBe('audio/wav');
    expect(Buffer.from(speech.bytes.subarray(0, 4)).toString('latin1')).toBe('RIFF');
    expect(speech.headers.get('x-audio-hash')).toMatch(/^[0-9a-f]{64}$/);
    const models = await client.listModels();
    expect(models.data.map((m) => m.id)).toContain('tts-1');
    const err = await failureOf(client.createSpeech({ model: 'mock', input: 'Hi.', voice: 'alloy' }), InvalidRequestError);
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect(isGatewayError(err, 'INVALID_VOICE')).toBe(true);
    expect((err as GatewayError).fields).toEqual([{ field: 'voice', message: expect.stringContaining('alloy') }]);
  });

  it('sends path parameters, query strings and bodies of compliance operations', async () => {
    const created = (await client.createRequirement({ title: 'Client-made requirement', framework: 'gdpr', priority: 'high' })) as {
      id: string;
      status: string;
    };
    expect(created.status).toBe('pending');
    const updated = (await client.updateRequirement(created.id, { status: 'in-progress' })) as { status: string };
    expect(updated.status).toBe('in-progress');
    expect(await client.getRequirement(created.id)).toMatchObject({ id: created.id, title: 'Client-made requirement', framework: 'gdpr' });
    const page = (await client.listRequirements({ framework: 'gdpr', limit: 5 })) as { data: { id: string }[]; pagination: { limit: number } };
    expect(page.pagination.limit).toBe(5);
    expect(page.data.map((r) => r.id)).toContain(created.id);
    const other = (await client.listRequirements({ framework: 'soc2' })) as { data: { id: string }[] };
    expect(other.data.map((r) => r.id)).not.toContain(created.id);
  });

  it('throws typed exceptions carrying the code, status, details and request id', async () => {
    const voice = await expectError(client.generateSpeech({ text: 'x', options: { provider: 'mock', voice: 'no-such-voice' } }));
    expect(voice).toBeInstanceOf(InvalidRequestError);
    expect(voice.code).toBe('INVALID_VOICE');
    expect(voice.status).toBe(400);
    expect(voice.requestId).toBeTruthy();

    const framework = await expectError(client.listRequirements({ framework: 'hipaa' as 'gdpr' }));
    expect(framework.code).toBe('INVALID_FRAMEWORK');
    expect(framework.details.supportedFrameworks).toEqual(['iso13485', 'fda21cfr11', 'gdpr', 'soc2']);

    const invalid = await expectError(client.createRequirement({ framework: 'gdpr' } as never));
    expect(invalid.code).toBe('VALIDATION_ERROR');
    expect(invalid.fields.map((f) => f.field)).toContain('title');

    const missing = await expectError(client.getRequirement('no-such-requirement'));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(isGatewayError(missing, 'NOT_FOUND')).toBe(true);

    const anonymous = new GatewayClient({ baseUrl: gw.url });
    expect(await expectError(anonymous.listRequirements())).toBeInstanceOf(AuthenticationError);
    const reader = new GatewayClient({ baseUrl: gw.url, apiKey: await issueKey(gw, ['read:requirements']) });
    const forbidden = await expectError(reader.createRequirement({ title: 't', framework: 'gdpr' }));
    expect(forbidden).toBeInstanceOf(AuthorizationError);
    expect(forbidden.code).toBe('AUTHORIZATION_ERROR');
  });
});

describe('progressive generation', () => {
  it('is an async iterator of started, progress and complete events', async () => {
    const text = Array.from({ length: 12 }, (_, i) => `Sentence number ${i + 1} of a longer text, long enough to be cut into chunks.`)
      .join(' ')
      .repeat(3);
    const events: ProgressEvent[] = [];
    for await (const e of client.generateSpeechProgressive({ text, options: { provider: 'mock' } })) events.push(e);
    expect(events[0].type).toBe('started');
    const last = events[events.length - 1];
    expect(last.type).toBe('complete');
    if (last.type !== 'complete') throw new Error('unreachable');
    expect(events.filter((e) => e.type === 'progress').length).toBeGreaterThan(0);
    expect(last.audioUrl).toBe(`/api/v1/audio/${last.hash}`);
    expect(await client.hasAudio(last.hash)).toBe(true);
  });

  it('throws the gateway error of a refused request before any event', async () => {
    const it = client.generateSpeechProgressive({ text: 'x', options: { provider: 'mock', speed: 99 } });
    const err = await expectError(it.next());
    expect(err.code).toBe('INVALID_SPEED');
  });

  it("throws an error event as the typed error of its code, with that code's status", async () => {
    // provider_a has no credentials in the test gateway: the generation fails once the stream is open.
    const it = client.generateSpeechProgressive({ text: 'A sentence for a provider that is not configured.', options: { provider: 'provider_a' } });
    const events: ProgressEvent[] = [];
    let err: GatewayError | undefined;
    try {
      for await (const e of it) events.push(e);
    } catch (e) {
      err = e as GatewayError;
    }
    expect(events.map((e) => e.type)).toEqual(['started']);
    expect(err).toBeInstanceOf(ServerError);
    expect(err).not.toBeInstanceOf(InvalidRequestError);
    expect(err).toMatchObject({ code: 'PROVIDER_NOT_CONFIGURED', status: 500, message: expect.stringContaining('PROVIDER_A_API_KEY') });
    expect(err!.details.event).toMatchObject({ type: 'error', code: 'PROVIDER_NOT_CONFIGURED' });
  });

  it('maps every code of the catalogue to its family, whatever status it arrived with', () => {
    const familyOf = (status: number) =>
      status === 401
        ? AuthenticationError
        : status === 403
          ? AuthorizationError
          : status === 404 || status === 410
            ? NotFoundError
            : status === 429
              ? RateLimitError
              : status >= 500
                ? ServerError
                : null;
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      for (const arrived of [status, 200]) {
        const e = errorFor(code, 'm', { status: arrived });
        expect([code, e.code]).toEqual([code, code]);
        const family = code === 'CONFLICT' ? ConflictError : (familyOf(status) ?? InvalidRequestError);
        expect([code, arrived, e.constructor.name]).toEqual([code, arrived, family.name]);
      }
    }
    // A code this client does not know: placed by the status it came with, its text kept.
    expect(errorFor('SOMETHING_NEW', 'm', { status: 503 })).toMatchObject({ code: 'INTERNAL_ERROR', details: { code: 'SOMETHING_NEW' } });
    expect(errorFor('SOMETHING_NEW', 'm', { status: 503 })).toBeInstanceOf(ServerError);
    expect(errorFor('SOMETHING_NEW', 'm', { status: 400 })).toBeInstanceOf(InvalidRequestError);
  });

  it('closes the stream when the loop is left early', async () => {
    const text = 'A sentence to make several chunks of audio from. '.repeat(60);
    const seen: string[] = [];
    for await (const e of client.generateSpeechProgressive({ text, options: { provider: 'mock', voice: 'mock-voice-2' } })) {
      seen.push(e.type);
      break;
    }
    expect(seen).toEqual(['started']);
  });
});

describe('webhooks', () => {
  it('verifies a real delivery and refuses a tampered or stale one', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const hook = (await client.createWebhook({ url: `${receiver.url}/hook`, events: ['requirement.created'] })) as { id: string; secret: string };
      const secret = hook.secret;
      const created = (await client.createRequirement({ title: 'Webhook-triggering requirement', framework: 'soc2' })) as { id: string };
      const received = await waitFor(() => receiver.received.find((r) => r.path === '/hook'));
      const delivery = { raw: received.raw, signature: String(received.headers['x-service-signature']) };
      const event = verifyWebhook<{ id: string }>(delivery.raw, delivery.signature, secret);
      expect(event.type).toBe('requirement.created');
      expect(event.data.id).toBe(created.id);

      expect(() => verifyWebhook(delivery.raw.replace('Webhook-triggering', 'Webhook-tampered'), delivery.signature, secret)).toThrow(WebhookSignatureError);
      expect(() => verifyWebhook(delivery.raw, delivery.signature, 'another-secret-of-16+')).toThrow(/does not match/);
      const t = Number(/t=(\d+)/.exec(delivery.signature)![1]);
      expect(() => verifyWebhook(delivery.raw, delivery.signature, secret, { now: t + 301 })).toThrow(/300 s/);
      expect(() => verifyWebhook(delivery.raw, undefined, secret)).toThrow(/missing/);
      expect(verifyWebhook(delivery.raw, signWebhook(delivery.raw, secret, t), secret, { now: t }).id).toBe(event.id);
      await client.deleteWebhook(hook.id);
    } finally {
      await receiver.close();
    }
  });
});

describe('live events with reconnect', () => {
  let proxy: TcpProxy;
  let viaProxy: GatewayClient;
  beforeAll(async () => {
    const { hostname, port } = new URL(gw.url);
    proxy = await startTcpProxy({ host: hostname, port: Number(port) });
    viaProxy = new GatewayClient({ baseUrl: `http://127.0.0.1:${proxy.port}`, apiKey: ADMIN_KEY });
  });
  afterAll(async () => {
    await viaProxy?.close();
    await proxy?.close();
  });

  it('dashboard WebSocket: typed events, re-subscribed after the connection drops', async () => {
    let subscribed = 0;
    const controller = new AbortController();
    const events = viaProxy.dashboardEvents({ events: ['requirement_updated'], signal: controller.signal, onSubscribed: () => (subscribed += 1) });
    const first = nextWithin(events);
    await waitFor(() => subscribed === 1);
    const a = (await client.createRequirement({ title: 'Live one', framework: 'iso13485' })) as { id: string };
    const e1: DashboardEvent = await first;
    expect(e1).toMatchObject({ type: 'requirement_updated', event: 'requirement.created', data: { id: a.id } });
    expect(typeof e1.timestamp).toBe('string');

    proxy.stop();
    await new Promise((r) => setTimeout(r, 300));
    proxy.resume();
    await waitFor(() => subscribed === 2);
    const second = nextWithin(events);
    const b = (await client.createRequirement({ title: 'Live two', framework: 'iso13485' })) as { id: string };
    expect(await second).toMatchObject({ event: 'requirement.created', data: { id: b.id } });
    controller.abort();
    expect((await events.next()).done).toBe(true);
  });

  it('dashboard WebSocket: a refused key ends the iteration with the error', async () => {
    const noDashboard = new GatewayClient({ baseUrl: gw.url, apiKey: await issueKey(gw, ['read:requirements']) });
    const err = await expectError(noDashboard.dashboardEvents().next());
    expect(err).toBeInstanceOf(AuthorizationError);
    const unknown = new GatewayClient({ baseUrl: gw.url, apiKey: 'sk_not-a-key' });
    expect(await expectError(unknown.dashboardEvents().next())).toBeInstanceOf(AuthenticationError);
  });

  it('graphql-ws subscription: continues after the socket drops', async () => {
    const events = viaProxy.graphql.subscribe(documents.ComplianceEventsDocument);
    const first = nextWithin(events);
    // The subscription is live once a created requirement reaches it; retry until one does.
    let firstEvent: Awaited<typeof first> | undefined;
    const until = Date.now() + 20_000;
    const settled = first.then((v) => (firstEvent = v));
    while (!firstEvent && Date.now() < until) {
      await client.createRequirement({ title: 'GraphQL live one', framework: 'soc2' });
      await Promise.race([settled, new Promise((r) => setTimeout(r, 300))]);
    }
    expect(firstEvent!.complianceEvents.type).toMatch(/^REQUIREMENT_|^COMPLIANCE_/);

    proxy.stop();
    await new Promise((r) => setTimeout(r, 300));
    proxy.resume();
    await waitFor(() => proxy.open > 0);
    // Drain what was queued, then see a new event arrive on the re-opened socket.
    const marker = `GraphQL after reconnect ${Date.now()}`;
    let seen = false;
    const deadline = Date.now() + 20_000;
    let pending: Promise<unknown> | null = null;
    while (!seen && Date.now() < deadline) {
      await client.createRequirement({ title: marker, framework: 'soc2' });
      pending ??= events.next().then((r) => {
        pending = null;
        const d = (r.value as any)?.complianceEvents?.data;
        if (d?.title === marker) seen = true;
      });
      await Promise.race([pending, new Promise((r) => setTimeout(r, 300))]);
    }
    expect(seen).toBe(true);
    await events.return!();
  });

  it('graphql-ws: progressive generation through the shipped typed subscription', async () => {
    const types: string[] = [];
    let hash: string | null | undefined;
    for await (const { generateProgressive: e } of client.graphql.subscribe(documents.GenerateProgressiveDocument, {
      input: { text: 'First sentence here. '.repeat(40), options: { provider: 'MOCK' } },
    })) {
      types.push(e.type);
      if (e.type === 'COMPLETE') {
        hash = e.hash;
        break;
      }
    }
    expect(types[0]).toBe('STARTED');
    expect(types).toContain('PROGRESS');
    expect(await client.hasAudio(hash!)).toBe(true);
  });

  it('GraphQL over HTTP: typed documents, errors with extensions.code', async () => {
    const { createRequirement } = await client.graphql.request(documents.CreateRequirementDocument, {
      input: { title: 'Through GraphQL', framework: 'FDA21CFR11' },
    });
    expect(createRequirement).toMatchObject({ title: 'Through GraphQL', framework: 'FDA21CFR11', status: 'PENDING' });
    const { requirement } = await client.graphql.request(documents.RequirementDocument, { id: createRequirement.id });
    expect(requirement.id).toBe(createRequirement.id);
    const err = await expectError(client.graphql.request(documents.RequirementDocument, { id: 'nope' }));
    expect(err).toBeInstanceOf(GraphqlError);
    expect(err.code).toBe('NOT_FOUND');
  });
});
