import { clock, clockStartingAt } from '../../domain/clock';
import { decode, probe } from '../../domain/tts/audio';
import { ADMIN_KEY, issueKey, useGateway } from '../helpers/gateway';
import { readSse } from '../helpers/sse';

const gw = useGateway();

const post = (path: string, json: unknown, auth?: string | null) => gw.request(path, { method: 'POST', json, auth });
const gen = async (text: string, options: Record<string, unknown> = {}) => {
  const res = await post('/api/v1/generate', { text, options: { provider: 'mock', ...options } });
  return { res, body: (await res.json()) as any };
};

describe('POST /generate', () => {
  test.each(['mp3', 'wav', 'ogg'] as const)('generates decodable %s whose duration follows text length and speed', async (format) => {
    const text = 'The quick brown fox jumps over the lazy dog near the river bank.';
    const { res, body } = await gen(text, { format, voice: 'mock-voice-2' });
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ cached: false, audioUrl: `/api/v1/audio/${body.hash}`, cost: 0 });
    expect(body.metadata).toMatchObject({ provider: 'mock', voice: 'mock-voice-2' });
    expect(new Date(body.metadata.generatedAt).toISOString()).toBe(body.metadata.generatedAt);
    const audio = await gw.request(body.audioUrl);
    expect(audio.status).toBe(200);
    expect(audio.headers.get('content-type')).toBe({ mp3: 'audio/mpeg', wav: 'audio/wav', ogg: 'audio/ogg' }[format]);
    const bytes = Buffer.from(await audio.arrayBuffer());
    expect(bytes.length).toBe(body.metadata.fileSize);
    expect(Number(audio.headers.get('content-length'))).toBe(bytes.length);
    expect(probe(bytes, format).ok).toBe(true);
    const pcm = await decode(bytes, format);
    const seconds = pcm.samples.length / pcm.sampleRate;
    const expected = text.length / 15;
    expect(Math.abs(seconds - expected)).toBeLessThan(Math.max(0.2, expected * 0.1));
    expect(Math.abs(body.duration - expected)).toBeLessThan(Math.max(0.2, expected * 0.1));
  });

  test('speed 2 halves the duration; same input is deterministic and cached', async () => {
    const text = 'Deterministic speech at two speeds for the cache test.';
    const slow = await gen(text, { speed: 1 });
    const fast = await gen(text, { speed: 2 });
    expect(fast.body.hash).not.toBe(slow.body.hash);
    expect(fast.body.duration).toBeCloseTo(slow.body.duration / 2, 0);
    const again = await gen(text, { speed: 1 });
    expect(again.body).toMatchObject({ cached: true, hash: slow.body.hash });
    const noCache = await gen(text, { speed: 1, cache: false });
    expect(noCache.body).toMatchObject({ cached: false, hash: slow.body.hash });
  });

  // The clock moves instead of the test sleeping, so a busy machine cannot make the entry expire
  // before the first look (or not yet at the second).
  test('ttl expires an entry', async () => {
    const generatedAt = Date.now();
    const { body } = await gen('This entry lives for one minute only.', { ttl: 60 });
    expect((await gw.request(body.audioUrl, { method: 'HEAD' })).status).toBe(200);
    let restore = clock.use(clockStartingAt(generatedAt + 58_000));
    try {
      expect((await gw.request(body.audioUrl, { method: 'HEAD' })).status).toBe(200);
      restore();
      restore = clock.use(clockStartingAt(Date.now() + 61_000));
      expect((await gw.request(body.audioUrl, { method: 'HEAD' })).status).toBe(404);
      const again = await gen('This entry lives for one minute only.', { ttl: 60 });
      expect(again.body.cached).toBe(false);
    } finally {
      restore();
    }
  });

  test.each([
    [{ voice: 'nope' }, 'INVALID_VOICE', 'mock'],
    [{ provider: 'provider_b', voice: 'barbershop-man', speed: 3 }, 'INVALID_SPEED', 'provider_b'],
    [{ format: 'flac' }, 'INVALID_FORMAT', 'mock'],
    [{ provider: 'provider_x' }, 'INVALID_PROVIDER', null],
    [{ provider: 'provider_a', voice: 'alloy', speed: 5 }, 'INVALID_SPEED', 'provider_a'],
    [{ provider: 'provider_b', voice: 'barbershop-man', emotion: { positivity: 2 } }, 'VALIDATION_ERROR', null],
    [{ provider: 'provider_c', voice: 'en-US-JennyNeural', pitch: 80 }, 'VALIDATION_ERROR', null],
    [{ provider: 'provider_a', voice: 'alloy', pitch: 3 }, 'INVALID_OPTION', 'provider_a'],
    [{ language: 'xx-YY' }, 'INVALID_LANGUAGE', 'mock'],
    [{ speed: 'fast' }, 'VALIDATION_ERROR', null],
    [{ unknownOption: 1 }, 'VALIDATION_ERROR', null],
  ])('options %j → 400 %s', async (options, code, provider) => {
    const res = await post('/api/v1/generate', { text: 'hello', options });
    expect(res.status).toBe(400);
    const body: any = await res.json();
    expect(body.error.code).toBe(code);
    expect(typeof body.error.message).toBe('string');
    expect(body.error.provider).toBe(provider);
    expect(typeof body.error.details).toBe('object');
  });

  test.each([
    ['missing text', {}, 'VALIDATION_ERROR'],
    ['empty text', { text: '' }, 'VALIDATION_ERROR'],
    ['blank text', { text: '   ' }, 'VALIDATION_ERROR'],
    ['numeric text', { text: 42 }, 'VALIDATION_ERROR'],
    ['oversized text', { text: 'x'.repeat(100_001) }, 'TEXT_TOO_LONG'],
    ['array body', [1, 2], 'VALIDATION_ERROR'],
  ])('%s → 400 %s', async (_label, json, code) => {
    const res = await post('/api/v1/generate', json);
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe(code);
  });

  test('malformed JSON, wrong content type and oversized bodies get clear errors', async () => {
    const bad = await gw.request('/api/v1/generate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text": ' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.code).toBe('VALIDATION_ERROR');
    const plain = await gw.request('/api/v1/generate', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(plain.status).toBe(415);
    const huge = await post('/api/v1/generate', { text: 'y'.repeat(2 * 1024 * 1024) });
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as any).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  test('real providers without credentials answer 500 PROVIDER_NOT_CONFIGURED', async () => {
    const res = await post('/api/v1/generate', { text: 'hello', options: { provider: 'provider_a', voice: 'alloy' } });
    expect(res.status).toBe(500);
    const body: any = await res.json();
    expect(body.error).toMatchObject({ code: 'PROVIDER_NOT_CONFIGURED', provider: 'provider_a' });
  });
});

describe('GET/HEAD /audio/{hash}', () => {
  let hash: string;
  let size: number;
  beforeAll(async () => {
    const { body } = await gen('Audio retrieval headers, ranges and conditional requests.', { format: 'mp3' });
    hash = body.hash;
    size = body.metadata.fileSize;
  });

  test('headers of the spec, ETag and 304', async () => {
    const res = await gw.request(`/api/v1/audio/${hash}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toContain('max-age=31536000');
    expect(res.headers.get('cache-control')).toContain('public');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('x-provider')).toBe('mock');
    expect(['memory', 'storage']).toContain(res.headers.get('x-cached-tier'));
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    await res.arrayBuffer();
    const notModified = await gw.request(`/api/v1/audio/${hash}`, { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
  });

  test('byte ranges: 206 with Content-Range, 416 when unsatisfiable', async () => {
    const part = await gw.request(`/api/v1/audio/${hash}`, { headers: { range: 'bytes=0-99' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-99/${size}`);
    expect((await part.arrayBuffer()).byteLength).toBe(100);
    const tail = await gw.request(`/api/v1/audio/${hash}`, { headers: { range: 'bytes=-10' } });
    expect(tail.status).toBe(206);
    expect(tail.headers.get('content-range')).toBe(`bytes ${size - 10}-${size - 1}/${size}`);
    await tail.arrayBuffer();
    const bad = await gw.request(`/api/v1/audio/${hash}`, { headers: { range: `bytes=${size + 10}-${size + 20}` } });
    expect(bad.status).toBe(416);
    expect(bad.headers.get('content-range')).toBe(`bytes */${size}`);
    expect(((await bad.json()) as any).error.code).toBe('RANGE_NOT_SATISFIABLE');
  });

  test('HEAD: 200 with Content-Length and no body; 404 when absent', async () => {
    const head = await gw.request(`/api/v1/audio/${hash}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBe(size);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const missing = await gw.request(`/api/v1/audio/${'0'.repeat(64)}`, { method: 'HEAD' });
    expect(missing.status).toBe(404);
  });

  test('HEAD: absent audio is 404 whatever form its hash has', async () => {
    for (const hash of ['not-a-hash', 'A'.repeat(64), '0'.repeat(65), 'abc', '%E2%9C%93']) {
      const head = await gw.request(`/api/v1/audio/${hash}`, { method: 'HEAD' });
      expect([hash, head.status]).toEqual([hash, 404]);
      expect((await head.arrayBuffer()).byteLength).toBe(0);
    }
    // GET of a malformed hash still names the bad input.
    expect((await gw.request('/api/v1/audio/not-a-hash')).status).toBe(400);
  });

  test('unknown and malformed hashes', async () => {
    const missing = await gw.request(`/api/v1/audio/${'a'.repeat(64)}`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.code).toBe('NOT_FOUND');
    const malformed = await gw.request('/api/v1/audio/not-a-hash');
    expect(malformed.status).toBe(400);
  });

  test('metadata: fuller form with accessCount kept current', async () => {
    const before: any = await (await gw.request(`/api/v1/audio/${hash}/metadata`)).json();
    await (await gw.request(`/api/v1/audio/${hash}`)).arrayBuffer();
    await (await gw.request(`/api/v1/audio/${hash}`)).arrayBuffer();
    const after: any = await (await gw.request(`/api/v1/audio/${hash}/metadata`)).json();
    expect(after.accessCount).toBe(before.accessCount + 2);
    expect(after).toMatchObject({ hash, provider: 'mock', voice: 'mock-voice-1', language: 'en', format: 'mp3', fileSize: size });
    expect(after.cost).toEqual({ amount: 0, currency: 'USD', charactersCharged: 'Audio retrieval headers, ranges and conditional requests.'.length });
    expect(after.sampleRate).toBeGreaterThan(0);
    expect(after.bitrate).toBeGreaterThan(0);
    expect(Date.parse(after.lastAccessedAt)).toBeGreaterThanOrEqual(Date.parse(before.lastAccessedAt));
  });

  test('a damaged file on disk is detected by its hash and never served', async () => {
    const { body } = await gen('This file will be damaged on disk.', { format: 'wav' });
    const fs = await import('node:fs');
    const path = await import('node:path');
    const meta: any = await (await gw.request(`/api/v1/audio/${body.hash}/metadata`)).json();
    expect(meta.hash).toBe(body.hash);
    gw.services.tts.cache.invalidate('all', false); // drop the memory tier so the disk copy is read
    const dir = path.join(gw.dataDir, 'audio');
    const files = fs.readdirSync(dir, { recursive: true }) as string[];
    const target = files.map((f) => path.join(dir, f)).find((f) => fs.statSync(f).isFile() && fs.statSync(f).size === body.metadata.fileSize)!;
    const bytes = fs.readFileSync(target);
    bytes[bytes.length - 1] ^= 0xff;
    fs.writeFileSync(target, bytes);
    const res = await gw.request(body.audioUrl);
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.details.reason).toBe('integrity-check-failed');
    const regenerated = await gen('This file will be damaged on disk.', { format: 'wav' });
    expect(regenerated.body.cached).toBe(false);
    expect((await gw.request(regenerated.body.audioUrl)).status).toBe(200);
  });
});

describe('estimate, catalogue and hashes', () => {
  test('estimate uses the price table', async () => {
    const text = 'a'.repeat(1000);
    const std: any = await (await post('/api/v1/estimate', { text, options: { provider: 'provider_a', voice: 'alloy', quality: 'standard' } })).json();
    expect(std).toMatchObject({ cost: 0.015, characterCount: 1000, currency: 'USD' });
    const hd: any = await (await post('/api/v1/estimate', { text, options: { provider: 'provider_a', voice: 'alloy', quality: 'high' } })).json();
    expect(hd.cost).toBe(0.03);
    const c: any = await (await post('/api/v1/estimate', { text, options: { provider: 'provider_c', voice: 'en-US-JennyNeural' } })).json();
    expect(c.cost).toBe(0.016);
    const m: any = await (await post('/api/v1/estimate', { text, options: { provider: 'mock' } })).json();
    expect(m.cost).toBe(0);
  });

  test('providers, voices, languages', async () => {
    const p: any = await (await gw.request('/api/v1/providers')).json();
    expect(p.providers.map((x: any) => x.name)).toEqual(['provider_a', 'provider_b', 'provider_c', 'mock']);
    expect(p.providers[0]).toMatchObject({
      name: 'provider_a',
      voices: expect.arrayContaining(['alloy', 'coral']),
      languages: expect.arrayContaining(['en', 'ko']),
    });
    const v: any = await (await gw.request('/api/v1/voices?provider=provider_b')).json();
    expect(v.voices).toEqual(['barbershop-man', 'broadway-diva', 'confident-british-man']);
    const all: any = await (await gw.request('/api/v1/voices')).json();
    expect(all.voices).toHaveLength(7 + 3 + 3 + 3);
    const l: any = await (await gw.request('/api/v1/languages?provider=provider_c')).json();
    expect(l.languages).toEqual(['en-US', 'en-GB']);
    const badProvider = await gw.request('/api/v1/voices?provider=nope');
    expect(badProvider.status).toBe(400);
  });

  test("each provider's listed defaults are what a request that names no option gets", async () => {
    const p: any = await (await gw.request('/api/v1/providers')).json();
    expect(p.providers.find((x: any) => x.name === 'provider_a').defaults).toEqual({
      voice: 'alloy',
      format: 'mp3',
      quality: 'standard',
      speed: 1,
      language: 'en',
    });
    expect(p.providers.find((x: any) => x.name === 'mock').defaults).toMatchObject({ quality: 'medium' });
    const text = 'Defaults, named or left out, are the same request.';
    for (const provider of p.providers) {
      // hash-info resolves the options as generation does: equal hashes mean equal requests.
      const bare: any = await (await post('/api/v1/hash-info', { text, options: { provider: provider.name } })).json();
      const named: any = await (await post('/api/v1/hash-info', { text, options: { provider: provider.name, ...provider.defaults } })).json();
      expect({ provider: provider.name, hashes: named.hashes }).toEqual({ provider: provider.name, hashes: bare.hashes });
    }
  });

  test('hash-info, hash-exists, hash-lookup with fallback', async () => {
    const options = { provider: 'mock', voice: 'mock-voice-3' };
    const { body } = await gen('Dr. Smith paid $5 & left.', { voice: 'mock-voice-3' });
    const info: any = await (await post('/api/v1/hash-info', { text: 'Dr. Smith paid $5 & left.', options })).json();
    expect(info.hashes.direct).toBe(body.hash);
    expect(info.text).toEqual({ original: 'Dr. Smith paid $5 & left.', length: 25 });
    const spoken = 'Doctor Smith paid five dollars and left.';
    const exists: any = await (await post('/api/v1/hash-exists', { text: spoken, options, hashMode: 'semantic' })).json();
    expect(exists).toMatchObject({ exists: true, hashMode: 'semantic' });
    const direct: any = await (await post('/api/v1/hash-lookup', { text: spoken, options, hashMode: 'direct' })).json();
    expect(direct.found).toBe(false);
    expect(typeof direct.message).toBe('string');
    expect(Object.keys(direct.hashes).sort()).toEqual(['content', 'direct', 'semantic']);
    const fallback: any = await (await post('/api/v1/hash-lookup', { text: spoken, options, hashMode: 'direct', allowFallback: true })).json();
    expect(fallback).toMatchObject({ found: true, hash: body.hash, mode: 'semantic', audioUrl: body.audioUrl });
    expect(fallback.confidence).toBeGreaterThan(0);
    expect(fallback.metadata).toMatchObject({ provider: 'mock', voice: 'mock-voice-3' });
    const content: any = await (await post('/api/v1/hash-lookup', { text: '  dr. SMITH paid $5 &amp; left.', options, hashMode: 'content' })).json();
    expect(content).toMatchObject({ found: true, mode: 'content' });
    const badMode = await post('/api/v1/hash-lookup', { text: 'x', hashMode: 'fuzzy' });
    expect(badMode.status).toBe(400);
  });
});

describe('progressive generation over SSE', () => {
  test('started, progress, complete; audio joined and cached under the whole text', async () => {
    const text = Array.from({ length: 12 }, (_, i) => `Sentence number ${i + 1} is here, said Dr. Jones.`).join(' ');
    const res = await post('/api/v1/generate-progressive', { text, options: { provider: 'mock', format: 'mp3' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = await readSse(res);
    expect(events[0]).toMatchObject({ type: 'started' });
    const total = events[0].totalChunks;
    expect(total).toBeGreaterThan(1);
    const progress = events.filter((e) => e.type === 'progress');
    expect(progress).toHaveLength(total);
    expect(progress.map((p) => p.completed)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(progress.at(-1)).toMatchObject({ completed: total, total, progress: 100 });
    const complete = events.at(-1);
    expect(complete).toMatchObject({ type: 'complete', chunks: total, audioUrl: `/api/v1/audio/${complete.hash}` });
    expect(complete.parallelTime).toBeGreaterThanOrEqual(0);
    expect(complete.metadata).toMatchObject({ provider: 'mock' });
    const whole: any = await (await post('/api/v1/hash-info', { text, options: { provider: 'mock', format: 'mp3' } })).json();
    expect(complete.hash).toBe(whole.hashes.direct);
    const audio = Buffer.from(await (await gw.request(complete.audioUrl)).arrayBuffer());
    const pcm = await decode(audio, 'mp3');
    expect(Math.abs(pcm.samples.length / pcm.sampleRate - text.length / 15)).toBeLessThan((text.length / 15) * 0.1);
    const cached = await post('/api/v1/generate', { text, options: { provider: 'mock', format: 'mp3' } });
    expect(((await cached.json()) as any).cached).toBe(true);
  });

  test('invalid input is a plain 400 before any event', async () => {
    const res = await post('/api/v1/generate-progressive', { text: 'hi', options: { voice: 'nope' } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe('INVALID_VOICE');
  });
});

describe('admin, health and statistics', () => {
  test('cache administration needs the admin key', async () => {
    const readOnly = await issueKey(gw, ['tts:read', 'tts:generate']);
    for (const [method, path] of [
      ['GET', '/api/v1/cache/stats'],
      ['DELETE', '/api/v1/cache'],
      ['DELETE', `/api/v1/cache/${'b'.repeat(64)}`],
    ]) {
      const none = await gw.request(path, { method, auth: null });
      expect(none.status).toBe(401);
      expect(((await none.json()) as any).error.code).toBe('AUTHENTICATION_ERROR');
      const wrong = await gw.request(path, { method, auth: 'sk_not_a_real_key' });
      expect(wrong.status).toBe(401);
      const weak = await gw.request(path, { method, auth: readOnly });
      expect(weak.status).toBe(403);
      expect(((await weak.json()) as any).error.code).toBe('AUTHORIZATION_ERROR');
    }
  });

  test('stats, delete one, clear all', async () => {
    const { body } = await gen('An entry to delete by hash.');
    const stats: any = await (await gw.request('/api/v1/cache/stats', { auth: ADMIN_KEY })).json();
    expect(stats.totalEntries).toBeGreaterThan(0);
    expect(stats.totalSize).toBeGreaterThan(0);
    expect(Date.parse(stats.oldestEntry)).toBeLessThanOrEqual(Date.parse(stats.newestEntry));
    expect(await (await gw.request(`/api/v1/cache/${body.hash}`, { method: 'DELETE' })).json()).toEqual({ deleted: true });
    expect(await (await gw.request(`/api/v1/cache/${body.hash}`, { method: 'DELETE' })).json()).toEqual({ deleted: false });
    expect((await gw.request(body.audioUrl)).status).toBe(404);
    const cleared: any = await (await gw.request('/api/v1/cache', { method: 'DELETE' })).json();
    expect(typeof cleared.message).toBe('string');
    const after: any = await (await gw.request('/api/v1/cache/stats')).json();
    expect(after).toMatchObject({ totalEntries: 0, totalSize: 0, oldestEntry: null, newestEntry: null });
  });

  test('health probes', async () => {
    const h: any = await (await gw.request('/api/v1/health', { auth: null })).json();
    expect(h).toMatchObject({ status: 'healthy' });
    expect(Number.isInteger(h.uptime)).toBe(true);
    expect(h.version).toMatch(/^0\./);
    const ready = await gw.request('/api/v1/health/ready', { auth: null });
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true });
    expect(await (await gw.request('/api/v1/health/live', { auth: null })).json()).toMatchObject({ live: true });
  });

  test('provider statistics count upstream generations', async () => {
    const before: any = await (await gw.request('/api/v1/stats/providers')).json();
    await gen(`Statistics sentence ${Date.now()}.`);
    const after: any = await (await gw.request('/api/v1/stats/providers')).json();
    expect(after.stats.mock.requests).toBe(before.stats.mock.requests + 1);
    expect(after.stats.mock.charactersProcessed).toBeGreaterThan(before.stats.mock.charactersProcessed);
    expect(after.stats.provider_a).toMatchObject({
      requests: expect.any(Number),
      errors: expect.any(Number),
      avgLatency: expect.any(Number),
      totalCost: expect.any(Number),
    });
  });

  test('rate limit headers are present', async () => {
    const res = await gw.request('/api/v1/health');
    expect(Number(res.headers.get('ratelimit-limit'))).toBe(100000);
    expect(res.headers.get('ratelimit-remaining')).not.toBeNull();
    expect(res.headers.get('ratelimit-reset')).not.toBeNull();
  });
});
