import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { ADMIN_KEY, startGateway, type TestGateway } from '../helpers/gateway';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
});

const gql = async (query: string, variables: Record<string, unknown> = {}, auth: string | null = ADMIN_KEY) => {
  const res = await gw.request('/graphql', { method: 'POST', json: { query, variables }, auth });
  return { status: res.status, body: (await res.json()) as any };
};

test('GraphQL: generate, metadata and a domain error with its code', async () => {
  const { body } = await gql(`mutation($input: GenerateInput!) { generate(input: $input) { hash audioUrl cached duration cost metadata { provider voice fileSize } } }`, {
    input: { text: 'Hello from GraphQL.', options: { provider: 'mock', format: 'wav' } },
  });
  expect(body.errors).toBeUndefined();
  const g = body.data.generate;
  expect(g).toMatchObject({ cached: false, audioUrl: `/api/v1/audio/${g.hash}`, metadata: { provider: 'mock', voice: 'mock-voice-1' } });
  const rest: any = await (await gw.request('/api/v1/generate', { method: 'POST', json: { text: 'Hello from GraphQL.', options: { provider: 'mock', format: 'wav' } } })).json();
  expect(rest).toMatchObject({ hash: g.hash, cached: true });
  const meta = await gql(`query($h: String!) { audioMetadata(hash: $h) { hash format fileSize cost { amount currency charactersCharged } hashes { direct } } }`, { h: g.hash });
  expect(meta.body.data.audioMetadata).toMatchObject({ hash: g.hash, format: 'wav', hashes: { direct: g.hash } });
  const bad = await gql(`mutation { generate(input: { text: "x", options: { voice: "nope" } }) { hash } }`);
  expect(bad.body.errors[0].extensions).toMatchObject({ code: 'INVALID_VOICE', status: 400 });
  expect(JSON.stringify(bad.body)).not.toMatch(/stack|at \w+ \(/);
  const providers = await gql(`{ providers { name voices } voices(provider: "mock") languages(provider: "provider_b") }`);
  expect(providers.body.data.voices).toEqual(['mock-voice-1', 'mock-voice-2', 'mock-voice-3']);
  expect(providers.body.data.languages).toContain('hi');
  const admin = await gql(`{ cacheStats { totalEntries } }`, {}, null);
  expect(admin.body.errors[0].extensions.code).toBe('AUTHENTICATION_ERROR');
});

test('GraphQL subscription over graphql-ws streams progressive generation', async () => {
  const client = createClient({ url: gw.url.replace('http', 'ws') + '/graphql', webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${ADMIN_KEY}` }, retryAttempts: 0 });
  const text = Array.from({ length: 6 }, (_, i) => `This is streamed sentence ${i + 1}.`).join(' ');
  const events: any[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      client.subscribe(
        {
          query: `subscription($input: GenerateInput!) { generateProgressive(input: $input) { type totalChunks completed total progress hash audioUrl chunks duration metadata { provider } } }`,
          variables: { input: { text, options: { provider: 'mock', format: 'ogg' } } },
        },
        { next: (v: any) => events.push(v.data.generateProgressive), error: reject, complete: resolve },
      );
    });
  } finally {
    await client.dispose();
  }
  expect(events[0].type).toBe('started');
  expect(events.filter((e) => e.type === 'progress').length).toBe(events[0].totalChunks);
  const done = events.at(-1);
  expect(done).toMatchObject({ type: 'complete', chunks: events[0].totalChunks, metadata: { provider: 'mock' } });
  const audio = await gw.request(done.audioUrl);
  expect(audio.headers.get('content-type')).toBe('audio/ogg');
});

test('tRPC: a query, a mutation and a domain error code', async () => {
  const res = await gw.request(`/trpc/tts.voices?input=${encodeURIComponent(JSON.stringify({ provider: 'provider_c' }))}`);
  const body: any = await res.json();
  expect(body.result.data.voices).toEqual(['en-US-JennyNeural', 'en-US-GuyNeural', 'en-GB-SoniaNeural']);
  const gen = await gw.request('/trpc/tts.generate', { method: 'POST', json: { text: 'Hello from tRPC.', options: { provider: 'mock' } } });
  expect(((await gen.json()) as any).result.data).toMatchObject({ cached: false, metadata: { provider: 'mock' } });
  const bad = await gw.request('/trpc/tts.generate', { method: 'POST', json: { text: 'x', options: { speed: 9 } } });
  expect(bad.status).toBe(400);
  const err: any = await bad.json();
  expect(err.error.data).toMatchObject({ code: 'BAD_REQUEST', domainCode: 'INVALID_SPEED', httpStatus: 400 });
});

test('OpenAPI document lists every REST path and the docs page is served', async () => {
  const doc: any = await (await gw.request('/api/openapi.json')).json();
  expect(doc.openapi).toBe('3.1.0');
  for (const p of ['/api/v1/generate', '/api/v1/generate-progressive', '/api/v1/audio/{hash}', '/api/v1/audio/{hash}/metadata', '/api/v1/estimate', '/api/v1/providers', '/api/v1/voices', '/api/v1/hash-info', '/api/v1/hash-lookup', '/api/v1/hash-exists', '/api/v1/cache/{hash}', '/api/v1/cache/stats', '/api/v1/cache', '/api/v1/health', '/api/v1/languages', '/api/v1/stats/providers', '/api/v1/health/ready', '/api/v1/health/live']) {
    expect(doc.paths[p]).toBeDefined();
  }
  expect(doc.paths['/api/v1/audio/{hash}'].head).toBeDefined();
  expect(doc.paths['/api/v1/generate'].post.requestBody.content['application/json'].schema.properties.text).toBeDefined();
  const page = await gw.request('/api/docs');
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('swagger-ui-bundle.js');
  expect(await (await gw.request('/api/docs/init.js')).text()).toContain('/api/openapi.json');
  const bundle = await gw.request('/api/docs/assets/swagger-ui-bundle.js');
  expect(bundle.status).toBe(200);
  await bundle.arrayBuffer();
  const metrics = await (await gw.request('/metrics')).text();
  expect(metrics).toContain('http_requests_total');
});
