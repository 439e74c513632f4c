import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { ADMIN_KEY, useGateway } from '../helpers/gateway';
import { expressRouter } from '../helpers/seam';

/**
 * The front's seam (gateway/front/seam.ts) answers a repeated POST /api/v1/generate from the hot tier,
 * and a hot audio file, without express. Whatever it answers must be what express answers for the
 * same request (the seam is switched off for one request by having the domain report a miss), and
 * whatever it does not answer must reach express with everything the front did (body, key, count).
 */
/** Per client IP and minute; every test here shares the counter of 127.0.0.1 (the last test spends it). */
const RATE_LIMIT = 40;
const gw = useGateway({ API_RATE_LIMIT: String(RATE_LIMIT) });
afterEach(() => jest.restoreAllMocks());

const body = (text: string) => JSON.stringify({ text, options: { provider: 'mock', format: 'mp3' } });
const generate = (text: string, opts: { auth?: string; raw?: string } = {}) =>
  fetch(`${gw.url}/api/v1/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(opts.auth ? { authorization: `Bearer ${opts.auth}` } : {}) },
    body: opts.raw ?? body(text),
  });
/** The same request with the seam off for it: the hot tier reports a miss to the seam, so express answers. */
const viaExpress = (text: string, opts: { auth?: string } = {}) => {
  jest.spyOn(gw.services.tts.generation, 'cachedGeneration').mockReturnValueOnce(undefined);
  return generate(text, opts);
};

const headerNames = (res: Response) =>
  [...res.headers.keys()].filter((name) => !['date', 'x-request-id', 'ratelimit-remaining', 'ratelimit-reset', 'content-length'].includes(name)).sort();

test('a cache hit is answered by the seam with the body and headers express gives it', async () => {
  const tts = gw.services.tts.generation;
  const first = await generate('The seam answers this the second time.');
  expect(first.status).toBe(200);
  expect(((await first.json()) as any).cached).toBe(false);

  const router = expressRouter();
  const fromMemory = jest.spyOn(tts, 'cachedGeneration');
  const full = jest.spyOn(tts, 'generate');
  const seam = await generate('The seam answers this the second time.');
  expect(seam.status).toBe(200);
  expect(fromMemory).toHaveBeenCalledTimes(1);
  expect(full).not.toHaveBeenCalled();
  expect(router).not.toHaveBeenCalled();

  const behind = await viaExpress('The seam answers this the second time.');
  expect(behind.status).toBe(200);
  expect(full).toHaveBeenCalledTimes(1);
  expect(router).toHaveBeenCalled();

  const seamText = await seam.text();
  expect(seamText).toBe(await behind.text());
  expect(JSON.parse(seamText).cached).toBe(true);
  expect(headerNames(seam)).toEqual(headerNames(behind));
  for (const name of headerNames(seam)) expect([name, seam.headers.get(name)]).toEqual([name, behind.headers.get(name)]);
  expect(seam.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(seam.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(seam.headers.get('x-content-type-options')).toBe('nosniff');
  expect(seam.headers.get('ratelimit-limit')).toBe(String(RATE_LIMIT));
});

test('a hot audio file is sent by the seam with the bytes and headers express sends', async () => {
  const made: any = await (await generate('Hot audio for the seam.')).json();
  const router = expressRouter();
  const seam = await fetch(`${gw.url}${made.audioUrl}`);
  expect(seam.status).toBe(200);
  expect(router).not.toHaveBeenCalled();
  jest.spyOn(gw.services.tts.audio, 'hotAudio').mockReturnValueOnce(undefined);
  const behind = await fetch(`${gw.url}${made.audioUrl}`);
  expect(router).toHaveBeenCalled();
  expect(Buffer.from(await seam.arrayBuffer()).equals(Buffer.from(await behind.arrayBuffer()))).toBe(true);
  expect(headerNames(seam)).toEqual(headerNames(behind));
  for (const name of headerNames(seam)) expect([name, seam.headers.get(name)]).toEqual([name, behind.headers.get(name)]);
  expect(seam.headers.get('x-cached-tier')).toBe('memory');
  expect(seam.headers.get('content-length')).toBe(behind.headers.get('content-length'));
  // A range, a condition: express's.
  const ranged = await fetch(`${gw.url}${made.audioUrl}`, { headers: { range: 'bytes=0-9' } });
  expect(ranged.status).toBe(206);
  expect((await ranged.arrayBuffer()).byteLength).toBe(10);
  const unchanged = await fetch(`${gw.url}${made.audioUrl}`, { headers: { 'if-none-match': seam.headers.get('etag')! } });
  expect(unchanged.status).toBe(304);
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

test('what the seam cannot answer reaches express with its body: invalid input, a miss; malformed JSON is refused at the edge', async () => {
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

test('an invalid key gets the same answer from the seam as from express', async () => {
  await generate('Keys are checked by the seam too.');
  const seam = await generate('Keys are checked by the seam too.', { auth: 'not-a-real-key' });
  const behind = await viaExpress('Keys are checked by the seam too.', { auth: 'not-a-real-key' });
  expect(seam.status).toBe(behind.status);
  expect(await seam.text()).toBe(await behind.text());
  const admin = await generate('Keys are checked by the seam too.', { auth: ADMIN_KEY });
  expect(admin.status).toBe(200);
  expect(((await admin.json()) as any).cached).toBe(true);
});

/** POST /api/v1/generate over a raw socket, its body written in two pieces cut at byte `cut`; the answer's status line and JSON. */
async function generateInPieces(payload: Buffer, cut: number): Promise<{ status: string; json: any }> {
  const socket = net.connect(Number(new URL(gw.url).port), '127.0.0.1');
  await once(socket, 'connect');
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.write(`POST /api/v1/generate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\nConnection: close\r\n\r\n`);
  socket.write(payload.subarray(0, cut));
  await new Promise((r) => setTimeout(r, 50));
  socket.write(payload.subarray(cut));
  await once(socket, 'close');
  const answer = Buffer.concat(chunks).toString('utf8');
  return { status: answer.slice(0, answer.indexOf('\r\n')), json: JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) };
}

test('a body that arrives in pieces is read whole, a character cut between them included, by the seam and by express', async () => {
  // A new text: express generates it from the bytes the front read in two pieces.
  const text = 'Pieces: café, naïve, façade.';
  const payload = Buffer.from(body(text));
  const cut = payload.indexOf(Buffer.from('é')) + 1; // between the two bytes of é
  const router = expressRouter();
  const made = await generateInPieces(payload, cut);
  expect(made.status).toBe('HTTP/1.1 200 OK');
  expect(made.json.cached).toBe(false);
  expect(router).toHaveBeenCalled();
  // The same bytes in one piece are a hit on what was made: the text was read as sent.
  const whole: any = await (await generate(text)).json();
  expect(whole).toMatchObject({ cached: true, hash: made.json.hash });
  // And in pieces again: the seam's hit.
  router.mockClear();
  const hit = await generateInPieces(payload, cut);
  expect(hit.json).toMatchObject({ cached: true, hash: made.json.hash });
  expect(router).not.toHaveBeenCalled();
});

test('a hit leaves node’s request object as node made it: what the front learns stays on its own record', async () => {
  // Node's code reads every request at the same few places; the front's fields on it would give
  // requests more shapes there (index.ts, "One request's passage").
  await generate('Left as node made it.');
  const requests: http.IncomingMessage[] = [];
  const capture = (req: http.IncomingMessage) => requests.push(req);
  gw.httpServer.on('request', capture);
  try {
    const router = expressRouter();
    const hit = await generate('Left as node made it.');
    expect(((await hit.json()) as any).cached).toBe(true);
    expect(router).not.toHaveBeenCalled();
  } finally {
    gw.httpServer.off('request', capture);
  }
  // The same request answered by node:http alone.
  const plain = http.createServer((req, res) => {
    requests.push(req);
    req.resume();
    req.on('end', () => res.end('{}'));
  });
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = plain.address() as net.AddressInfo;
    await (
      await fetch(`http://127.0.0.1:${port}/api/v1/generate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: body('Left as node made it.'),
      })
    ).text();
  } finally {
    plain.close();
  }
  const fields = (o: object) => [...Object.getOwnPropertyNames(o), ...Object.getOwnPropertySymbols(o).map(String)].sort();
  expect(requests).toHaveLength(2);
  expect(fields(requests[0])).toEqual(fields(requests[1]));
});

test('a compressed body is read by the front (inflated as express inflates it) and answered like the plain request', async () => {
  await generate('A gzipped request body.');
  const fromMemory = jest.spyOn(gw.services.tts.generation, 'cachedGeneration');
  const res = await fetch(`${gw.url}/api/v1/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: gzipSync(body('A gzipped request body.')),
  });
  expect(res.status).toBe(200);
  expect(((await res.json()) as any).cached).toBe(true);
  expect(fromMemory).toHaveBeenCalledTimes(1);
});

test('the seam and express share one rate-limit counter, charged once by the front; over it, 429 in the TTS envelope', async () => {
  // Runs last: it spends what is left of this client's limit.
  await generate('Spend the limit.');
  let last: Response | undefined;
  const remaining: number[] = [];
  for (let i = 0; i < RATE_LIMIT * 3 && (!last || last.status !== 429); i++) {
    last = i % 2 ? await viaExpress('Spend the limit.') : await generate('Spend the limit.');
    if (last.status === 200) remaining.push(Number(last.headers.get('ratelimit-remaining')));
    else break;
    await last.arrayBuffer();
  }
  expect(last!.status).toBe(429);
  for (let i = 1; i < remaining.length; i++) expect(remaining[i]).toBe(remaining[i - 1] - 1);
  // Refused at the edge, before anything is read from the cache.
  const fromMemory = jest.spyOn(gw.services.tts.generation, 'cachedGeneration').mockClear();
  const refused = await generate('Spend the limit.');
  expect(fromMemory).not.toHaveBeenCalled();
  expect(refused.status).toBe(429);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(refused.headers.get('ratelimit-remaining')).toBe('0');
  const err: any = await refused.json();
  expect(err.error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', provider: null });
  expect(err.error.details.requestId).toBe(refused.headers.get('x-request-id'));
});
