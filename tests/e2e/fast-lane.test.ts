import { gzipSync } from 'node:zlib';
import { ADMIN_KEY, useGateway } from '../helpers/gateway';

/**
 * The fast lane (rest-adapter/fast-lane.ts) answers a repeated POST /api/v1/generate from memory in
 * front of express. Whatever it answers must be what express would have answered, and whatever it
 * cannot answer must reach express intact (its body already read).
 */
/** Per client IP and minute; every test here shares the counter of 127.0.0.1 (the last test spends it). */
const RATE_LIMIT = 30;
const gw = useGateway({ API_RATE_LIMIT: String(RATE_LIMIT) });
afterEach(() => jest.restoreAllMocks());

const body = (text: string) => JSON.stringify({ text, options: { provider: 'mock', format: 'mp3' } });
/** The same request; `via: 'express'` uses a JSON media type the lane leaves to express. */
const generate = (text: string, opts: { via?: 'lane' | 'express'; auth?: string; raw?: string } = {}) =>
  fetch(`${gw.url}/api/v1/generate`, {
    method: 'POST',
    headers: {
      'content-type': opts.via === 'express' ? 'application/merge+json' : 'application/json',
      ...(opts.auth ? { authorization: `Bearer ${opts.auth}` } : {}),
    },
    body: opts.raw ?? body(text),
  });

const headerNames = (res: Response) =>
  [...res.headers.keys()].filter((name) => !['date', 'x-request-id', 'ratelimit-remaining', 'ratelimit-reset', 'content-length'].includes(name)).sort();

test('a cache hit is answered by the lane with the body and headers express gives it', async () => {
  const tts = gw.services.tts.generation;
  const first = await generate('The lane answers this the second time.');
  expect(first.status).toBe(200);
  expect(((await first.json()) as any).cached).toBe(false);

  const fromMemory = jest.spyOn(tts, 'cachedGeneration');
  const full = jest.spyOn(tts, 'generate');
  const lane = await generate('The lane answers this the second time.');
  expect(lane.status).toBe(200);
  expect(fromMemory).toHaveBeenCalledTimes(1);
  expect(full).not.toHaveBeenCalled();

  const viaExpress = await generate('The lane answers this the second time.', { via: 'express' });
  expect(viaExpress.status).toBe(200);
  expect(full).toHaveBeenCalledTimes(1);

  expect(await lane.json()).toEqual(await viaExpress.json());
  expect(headerNames(lane)).toEqual(headerNames(viaExpress));
  expect(lane.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(lane.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(lane.headers.get('x-content-type-options')).toBe('nosniff');
  expect(lane.headers.get('ratelimit-limit')).toBe(String(RATE_LIMIT));
});

test('a given X-Request-Id is echoed and the answer is counted in /metrics under the route', async () => {
  await generate('Counted in the metrics.');
  const before = await metricValue();
  const res = await fetch(`${gw.url}/api/v1/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': 'trace-123.abc' },
    body: body('Counted in the metrics.'),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('x-request-id')).toBe('trace-123.abc');
  expect(await metricValue()).toBe(before + 1);
});

async function metricValue(): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('http_requests_total{') && l.includes('route="/api/v1/generate"') && l.includes('status="200"'));
  return line ? Number(line.split(' ').pop()) : 0;
}

test('what the lane cannot answer reaches express with its body: malformed JSON, invalid input, a miss', async () => {
  const malformed = await generate('', { raw: '{"text": "unterminated' });
  expect(malformed.status).toBe(400);
  const m: any = await malformed.json();
  expect(m.error.code).toBe('VALIDATION_ERROR');
  expect(m.error.message).toMatch(/not valid JSON/);

  const invalid = await generate('', { raw: JSON.stringify({ text: '', options: { provider: 'mock' } }) });
  expect(invalid.status).toBe(400);
  expect(((await invalid.json()) as any).error.code).toBe('VALIDATION_ERROR');

  const badVoice = await generate('', { raw: JSON.stringify({ text: 'Hi there.', options: { provider: 'mock', voice: 'nobody' } }) });
  expect(badVoice.status).toBe(400);
  expect(((await badVoice.json()) as any).error.code).toBe('INVALID_VOICE');

  const noCache = JSON.stringify({ text: 'Never from the cache.', options: { provider: 'mock', cache: false } });
  for (let i = 0; i < 2; i++) {
    const res = await generate('', { raw: noCache });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).cached).toBe(false);
  }
});

test('an invalid key gets the same answer from the lane as from express', async () => {
  await generate('Keys are checked on the lane too.');
  const lane = await generate('Keys are checked on the lane too.', { auth: 'not-a-real-key' });
  const viaExpress = await generate('Keys are checked on the lane too.', { via: 'express', auth: 'not-a-real-key' });
  expect(lane.status).toBe(viaExpress.status);
  const a: any = await lane.json();
  const b: any = await viaExpress.json();
  expect(a.error?.code ?? a.cached).toEqual(b.error?.code ?? b.cached);
  const admin = await generate('Keys are checked on the lane too.', { auth: ADMIN_KEY });
  expect(admin.status).toBe(200);
  expect(((await admin.json()) as any).cached).toBe(true);
});

test('a compressed body is left to express, which inflates it: the same answer as the plain request', async () => {
  await generate('A gzipped request body.');
  const fromMemory = jest.spyOn(gw.services.tts.generation, 'cachedGeneration');
  const res = await fetch(`${gw.url}/api/v1/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: gzipSync(body('A gzipped request body.')),
  });
  expect(res.status).toBe(200);
  expect(((await res.json()) as any).cached).toBe(true);
  // express answered it (its handler reads the cache through the full generation path).
  expect(fromMemory).not.toHaveBeenCalled();
});

test('the lane and express share one rate-limit counter: the lane answers 429 in the TTS envelope', async () => {
  // Runs last: it spends what is left of this client's limit.
  await generate('Spend the limit.');
  let last: Response | undefined;
  const remaining: number[] = [];
  for (let i = 0; i < RATE_LIMIT * 3 && (!last || last.status !== 429); i++) {
    last = await generate('Spend the limit.', { via: i % 2 ? 'express' : 'lane' });
    if (last.status === 200) remaining.push(Number(last.headers.get('ratelimit-remaining')));
    else break;
    await last.arrayBuffer();
  }
  expect(last!.status).toBe(429);
  for (let i = 1; i < remaining.length; i++) expect(remaining[i]).toBe(remaining[i - 1] - 1);
  // Answered by the lane: a cache hit over the limit.
  const fromMemory = jest.spyOn(gw.services.tts.generation, 'cachedGeneration');
  const lane = await generate('Spend the limit.');
  expect(fromMemory).toHaveBeenCalled();
  expect(lane.status).toBe(429);
  expect(Number(lane.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(lane.headers.get('ratelimit-remaining')).toBe('0');
  const err: any = await lane.json();
  expect(err.error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', provider: null });
  expect(err.error.details.requestId).toBe(lane.headers.get('x-request-id'));
});
