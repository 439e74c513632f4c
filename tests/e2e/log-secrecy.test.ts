import { Writable } from 'node:stream';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createLogger } from '../../gateway/logger';
import { startFakeVendor, type FakeVendor } from '../helpers/fake-vendor';
import { ADMIN_KEY, issueKey, startGateway, type TestGateway } from '../helpers/gateway';
import { quotedForms } from '../helpers/secret-forms';
import { readSse } from '../helpers/sse';

/**
 * Keys never reach the log. The gateway logs at `trace` into memory with the production redaction
 * config while secrets travel every way a client can send them (headers, `?access_token=`, graphql-ws
 * connection params), wrong keys are refused and a 5xx is forced; then the whole log text is searched.
 */
let gw: TestGateway;
let vendor: FakeVendor;
/** provider_a's key, with characters that URL-encoding and base64 treat specially. */
const VENDOR_KEY = 'sk-proj/Vendor+Key=0123456789abcdefGHIJ';
const lines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    lines.push(chunk.toString());
    done();
  },
});

beforeAll(async () => {
  vendor = await startFakeVendor(() => ({ status: 500 }));
  gw = await startGateway(
    {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      PROVIDER_A_API_KEY: VENDOR_KEY,
      PROVIDER_A_BASE_URL: vendor.url,
      // One attempt per call and no circuit breaking: every request below reaches the fake vendor.
      PROVIDER_MAX_ATTEMPTS: '1',
      PROVIDER_FAILURE_THRESHOLD: '1000',
      API_RATE_LIMIT: '10000',
    },
    { logger: createLogger('trace', sink) },
  );
}, 60_000);
afterAll(async () => {
  await gw?.close();
  await vendor?.close();
});

const wsUrl = () => gw.url.replace(/^http/, 'ws');

function openDashboard(query: string, headers: Record<string, string> = {}): Promise<{ opened: boolean; status?: number }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${wsUrl()}/v1/dashboard/ws${query}`, { headers });
    socket.on('open', () => {
      socket.close();
      resolve({ opened: true });
    });
    socket.on('unexpected-response', (_req, res) => {
      resolve({ opened: false, status: res.statusCode });
      res.resume();
      socket.terminate();
    });
    socket.on('error', () => resolve({ opened: false }));
  });
}

async function graphqlWsQuery(authorization: string): Promise<unknown[]> {
  const client = createClient({ url: `${wsUrl()}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization }, retryAttempts: 0, lazy: true });
  const results: unknown[] = [];
  try {
    await new Promise<void>((resolve) => {
      client.subscribe(
        { query: '{ requirements(limit: 1) { data { id } } }' },
        { next: (v) => results.push(v), error: (e) => (results.push({ error: String((e as any)?.reason ?? e) }), resolve()), complete: resolve },
      );
    });
  } finally {
    await client.dispose();
  }
  return results;
}

test('no key, bearer header or access_token appears in a trace-level log of authenticated and refused traffic', async () => {
  const reader = await issueKey(gw, ['read:requirements', 'read:dashboard', 'write:requirements']);
  const webhookSecret = 'whsec-log-secrecy-0123456789abcdef';
  const wrongKeys = ['sk_wrong_' + 'A'.repeat(40), 'not-even-a-key-' + 'z'.repeat(20)];

  // REST, GraphQL and tRPC with good keys
  expect((await gw.request('/v1/requirements?limit=1', { auth: reader })).status).toBe(200);
  const created = await gw.request('/v1/requirements', { method: 'POST', auth: reader, json: { title: 'Log secrecy access review', framework: 'soc2' } });
  expect(created.status).toBe(201);
  const gql = await gw.request('/graphql', { method: 'POST', auth: reader, json: { query: '{ requirements(limit: 1) { data { id } } }' } });
  expect(gql.status).toBe(200);
  expect((await gw.request('/trpc/compliance.requirements', { auth: reader })).status).toBe(200);
  const hook = await gw.request('/v1/webhooks', {
    method: 'POST',
    json: { url: 'http://127.0.0.1:9/in', events: ['requirement.updated'], secret: webhookSecret },
  });
  expect(hook.status).toBe(201);
  const issuedLater = await issueKey(gw, ['read:requirements']); // a key that only ever travelled in a response body

  // wrong keys on every transport
  for (const wrong of wrongKeys) {
    expect((await gw.request('/v1/requirements', { auth: wrong })).status).toBe(401);
    expect((await gw.request('/api/v1/voices', { auth: wrong })).status).toBeLessThan(500); // open TTS mode: served anonymously
    const refusedGql = await gw.request('/graphql', { method: 'POST', auth: wrong, json: { query: '{ requirements(limit: 1) { data { id } } }' } });
    expect(((await refusedGql.json()) as any).errors[0].extensions.code).toBe('AUTHENTICATION_ERROR');
    expect((await gw.request('/trpc/compliance.requirements', { auth: wrong })).status).toBe(401);
    expect(await openDashboard(`?access_token=${encodeURIComponent(wrong)}`)).toEqual({ opened: false, status: 401 });
  }

  // WebSocket upgrades carrying the key in the query string or a header, and graphql-ws connection params
  expect(await openDashboard(`?access_token=${encodeURIComponent(reader)}`)).toEqual({ opened: true });
  expect(await openDashboard('', { authorization: `Bearer ${ADMIN_KEY}` })).toEqual({ opened: true });
  const viaWs = await graphqlWsQuery(`Bearer ${reader}`);
  expect(viaWs).toEqual([{ data: { requirements: { data: expect.any(Array) } } }]);
  const refusedWs = await graphqlWsQuery(`Bearer ${wrongKeys[0]}`);
  expect(refusedWs).toHaveLength(1);
  expect(refusedWs[0]).toHaveProperty('error');

  // A 5xx: an unexpected failure in a domain operation is logged with its error
  const requirements = gw.services.requirements as any;
  const originalList = requirements.list;
  const originalKept = requirements.keptList;
  requirements.list = async () => {
    throw new Error('forced failure for the log secrecy test');
  };
  requirements.keptList = async () => undefined; // nothing kept: every list is computed (and fails)
  try {
    const failed = await gw.request('/v1/requirements', { auth: reader, headers: { 'x-request-id': 'log-secrecy-5xx' } });
    expect(failed.status).toBe(500);
    // A query not asked before: the same one would be answered from the response cache, unchanged data.
    const failedGql = await gw.request('/graphql', { method: 'POST', auth: reader, json: { query: '{ requirements(limit: 4) { data { id } } }' } });
    expect(((await failedGql.json()) as any).errors[0].extensions.code).toBe('INTERNAL_ERROR');
    const failedTrpc = await gw.request('/trpc/compliance.requirements', { auth: reader });
    expect(failedTrpc.status).toBe(500);
  } finally {
    requirements.list = originalList;
    requirements.keptList = originalKept;
  }
  await new Promise((r) => setTimeout(r, 200)); // pino writes asynchronously to the stream

  const log = lines.join('');
  // The log did see this traffic, so the absence checks below are about what it holds, not silence.
  expect(log).toContain('"route":"/v1/requirements"');
  expect(log).toContain('"path":"/v1/dashboard/ws"');
  expect(log).toContain('"status":401');
  expect(log).toContain('forced failure for the log secrecy test');
  expect(log).toContain('log-secrecy-5xx');
  expect(log).toMatch(/trpc procedure failed|graphql resolver failed/);

  for (const secret of [reader, issuedLater, ADMIN_KEY, webhookSecret, ...wrongKeys]) {
    expect(log).not.toContain(secret);
    expect(log).not.toContain(encodeURIComponent(secret));
    expect(log).not.toContain(secret.slice(-16)); // not even a tail of it
  }
  expect(log).not.toMatch(/Bearer\s+\S/);
  expect(log).not.toContain('access_token=');
});

test('vendor error text quoting the vendor key in any form reaches no client (REST, GraphQL, tRPC, SSE) and the log only redacted', async () => {
  const forms = quotedForms(VENDOR_KEY);
  const statuses = [400, 401, 403, 422, 429, 500, 503];
  const answers: string[] = [];
  let n = 0;
  let calls = 0;
  for (const [form, quoted] of Object.entries(forms)) {
    const status = statuses[n++ % statuses.length];
    const reply =
      n % 2
        ? {
            status,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ error: { message: `Invalid API key (${form}): ${quoted}`, code: 'invalid_api_key' } }),
          }
        : { status, headers: { 'content-type': 'text/plain' }, body: `key ${quoted} is not valid for this project` };
    vendor.reset(() => reply);
    const input = (transport: string) => ({ text: `Vendor secrecy ${form} over ${transport}.`, options: { provider: 'provider_a', voice: 'alloy' } });

    const rest = await gw.request('/api/v1/generate', { method: 'POST', json: input('rest') });
    const restBody: any = await rest.json();
    expect(rest.status).toBe(502);
    expect(restBody.error).toMatchObject({ code: 'PROVIDER_A_GENERATION_ERROR', details: { upstreamStatus: status, attempts: 1 } });
    expect(typeof restBody.error.details.reason).toBe('string');
    answers.push(JSON.stringify(restBody));

    const gql = await gw.request('/graphql', {
      method: 'POST',
      json: {
        query: 'mutation($input: GenerateInput!) { generate(input: $input) { hash } }',
        variables: { input: { ...input('graphql'), options: { provider: 'PROVIDER_A', voice: 'alloy' } } },
      },
    });
    const gqlBody: any = await gql.json();
    expect(gqlBody.errors[0].extensions).toMatchObject({ code: 'PROVIDER_A_GENERATION_ERROR' });
    answers.push(JSON.stringify(gqlBody));

    const trpc = await gw.request('/trpc/tts.generate', { method: 'POST', json: input('trpc') });
    expect(trpc.status).toBe(502);
    answers.push(await trpc.text());

    const sse = await gw.request('/api/v1/generate-progressive', { method: 'POST', json: input('sse') });
    const events = await readSse(sse, { until: (e) => e.type === 'error' || e.type === 'complete' });
    expect(events.at(-1)).toMatchObject({ type: 'error' });
    answers.push(JSON.stringify(events));

    const trpcSse = await gw.request(`/trpc/tts.generateProgressive?input=${encodeURIComponent(JSON.stringify(input('trpc-sse')))}`, {
      headers: { accept: 'text/event-stream' },
    });
    const trpcEvents = await trpcSse.text();
    expect(trpcEvents).toContain('"code":"PROVIDER_A_GENERATION_ERROR"');
    answers.push(trpcEvents);
    calls += vendor.requests.length;
  }
  // Every call reached the vendor: the answers below are refusals of what it said, not of nothing.
  expect(calls).toBeGreaterThanOrEqual(Object.keys(forms).length * 5);
  await new Promise((r) => setTimeout(r, 200)); // pino writes asynchronously to the stream

  const log = lines.join('');
  expect(log).toContain('vendor call failed');
  expect(log).toContain('is not valid for this project'); // the full text is logged…
  expect(log).toContain('[redacted]');
  for (const [form, quoted] of Object.entries(forms)) {
    for (const answer of answers) expect({ form, leaked: answer.includes(quoted) }).toEqual({ form, leaked: false });
    expect({ form, leaked: log.includes(quoted) }).toEqual({ form, leaked: false }); // …redacted
  }
  for (const answer of answers) {
    expect(answer).not.toContain('is not valid for this project');
    expect(answer).not.toContain('Invalid API key (');
  }
});
