import { issueKey, useGateway } from '../helpers/gateway';

/**
 * Cost-aware limits for speech, on every transport: a characters-per-minute budget per client (key,
 * else address) shown in RateLimit-* headers; a cap on the generations one client runs at once (more
 * wait; a flood beyond that is 429) so another client is not held up; a bounded server-wide queue
 * (full: 503 with Retry-After). Each mock chunk takes MOCK_LATENCY_MS, so generations overlap.
 */
const gw = useGateway({
  MOCK_LATENCY_MS: '1200',
  TTS_CHARS_PER_MINUTE: '1000',
  TTS_MAX_CONCURRENT_PER_CLIENT: '1',
  TTS_MAX_CONCURRENT_GENERATIONS: '2',
  TTS_ADMISSION_QUEUE: '6',
});

const speechKey = () => issueKey(gw, ['tts:generate', 'tts:read']);
let serial = 0;
/** A text of exactly `n` characters that no other request has asked for. */
const text = (n: number) => {
  const head = `Sentence ${++serial} of the budget test. `;
  return (head + 'a'.repeat(n)).slice(0, n - 1) + '.';
};
const generate = (key: string | null, t: string) =>
  gw.request('/api/v1/generate', { method: 'POST', auth: key, json: { text: t, options: { provider: 'mock' } } });
const codeOf = async (res: Response) => {
  const body: any = await res.json();
  return body?.error?.code ?? body?.code;
};

test('characters per minute per client, shown in RateLimit-* headers; cache hits are free; the same budget on GraphQL and tRPC', async () => {
  const key = await speechKey();
  const first = text(400);
  const a = await generate(key, first);
  expect(a.status).toBe(200);
  expect(a.headers.get('ratelimit-characters-limit')).toBe('1000');
  expect(a.headers.get('ratelimit-characters-remaining')).toBe('600');
  expect(Number(a.headers.get('ratelimit-characters-reset'))).toBeGreaterThan(0);
  expect(a.headers.get('ratelimit-policy')).toMatch(/1000;w=60;comment="characters"/);
  expect(a.headers.get('ratelimit-limit')).not.toBeNull(); // the request-count headers stay

  const b = await generate(key, text(400));
  expect(b.status).toBe(200);
  expect(b.headers.get('ratelimit-characters-remaining')).toBe('200');

  const over = await generate(key, text(400));
  expect(over.status).toBe(429);
  expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(over.headers.get('ratelimit-characters-remaining')).toBe('200');
  expect(await codeOf(over)).toBe('RATE_LIMIT_EXCEEDED');

  // The audio already made is still served, and asking for it again costs nothing.
  expect((await generate(key, first)).status).toBe(200);

  const gql = await gw.request('/graphql', {
    method: 'POST',
    auth: key,
    json: { query: 'mutation($t: String!) { generate(input: { text: $t, options: { provider: MOCK } }) { hash } }', variables: { t: text(400) } },
  });
  const gqlBody: any = await gql.json();
  expect(gqlBody.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
  expect(gql.headers.get('retry-after')).toMatch(/^\d+$/);

  const trpc = await gw.request('/trpc/tts.generate', { method: 'POST', auth: key, json: { text: text(400), options: { provider: 'mock' } } });
  expect(trpc.status).toBe(429);

  const sse = await gw.request('/api/v1/generate-progressive', { method: 'POST', auth: key, json: { text: text(400), options: { provider: 'mock' } } });
  expect(sse.status).toBe(429); // refused before the stream opens
  expect(await codeOf(sse)).toBe('RATE_LIMIT_EXCEEDED');

  // Another client has its own budget.
  expect((await generate(await speechKey(), text(400))).status).toBe(200);
}, 60_000);

test('one client flooding: its generations run one at a time, a sixth at once is 429, another client goes ahead', async () => {
  const flooder = await speechKey();
  const other = await speechKey();
  const started = Date.now();
  const flood = Array.from({ length: 6 }, () =>
    generate(flooder, text(150)).then(async (res) => ({ status: res.status, code: res.status === 200 ? null : await codeOf(res), at: Date.now() - started })),
  );
  await new Promise((r) => setTimeout(r, 300));
  const otherRes = await generate(other, text(150));
  const otherDone = Date.now() - started;
  expect(otherRes.status).toBe(200);
  const results = await Promise.all(flood);
  const ok = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status === 429);
  expect(ok).toHaveLength(5); // one runs, four wait
  expect(refused.map((r) => r.code)).toEqual(['RATE_LIMIT_EXCEEDED']);
  // The flood's five ran one after another; the other client did not wait behind them.
  const lastOfFlood = Math.max(...ok.map((r) => r.at));
  expect(lastOfFlood).toBeGreaterThan(otherDone + 2 * 1000);
}, 60_000);

test('a full server-wide queue answers 503 with Retry-After, on REST and GraphQL', async () => {
  const keys = await Promise.all(Array.from({ length: 10 }, () => speechKey()));
  // Two run, six wait, the rest find the queue full.
  const calls = keys.slice(0, 9).map((key) => generate(key, text(120)).then((res) => res.status));
  // The queue is full once one of the nine is refused; the others hold it for a generation's length
  // (MOCK_LATENCY_MS), however long the nine took to arrive on a busy machine.
  const refused = new Promise<void>((resolve) => calls.forEach((call) => void call.then((status) => status === 503 && resolve())));
  await Promise.race([refused, Promise.all(calls)]); // none refused: the counts below say so
  const gql = await gw.request('/graphql', {
    method: 'POST',
    auth: keys[9],
    json: { query: 'mutation($t: String!) { generate(input: { text: $t, options: { provider: MOCK } }) { hash } }', variables: { t: text(120) } },
  });
  const gqlBody: any = await gql.json();
  const statuses = await Promise.all(calls);
  expect(statuses.filter((s) => s === 200)).toHaveLength(8);
  expect(statuses.filter((s) => s === 503)).toHaveLength(1);
  expect(gqlBody.errors?.[0]?.extensions).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
  expect(gql.headers.get('retry-after')).toMatch(/^\d+$/);
  // Drained: a new request is admitted again.
  expect((await generate(keys[0], text(120))).status).toBe(200);
}, 60_000);
