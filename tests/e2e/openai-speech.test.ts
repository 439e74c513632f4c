import { probe, type AudioFormat } from '../../domain/tts/audio';
import { ADMIN_KEY, useGateway } from '../helpers/gateway';
import { expressRouter } from '../helpers/seam';

/**
 * OpenAI-compatible speech over plain HTTP: every response_format the gateway encodes, the ones it
 * does not (refused in OpenAI's envelope), the model list, the same audio and statistics as
 * /api/v1/generate, a cache hit answered by the front's seam as express answers it, and streaming.
 */
const gw = useGateway();
afterEach(() => jest.restoreAllMocks());

let serial = 0;
const fresh = (what: string) => `${what}, request ${++serial} of the OpenAI speech suite.`;
const speech = (body: unknown, opts: { auth?: string | null; headers?: Record<string, string> } = {}) =>
  gw.request('/v1/audio/speech', { method: 'POST', json: body, auth: opts.auth, headers: opts.headers });

const MEDIA: Record<AudioFormat, string> = { mp3: 'audio/mpeg', wav: 'audio/wav', ogg: 'audio/ogg' };

test.each(['mp3', 'wav', 'ogg'] as AudioFormat[])('response_format %s: the audio bytes, of that format, with its hash and X-Cache', async (format) => {
  const res = await speech({ model: 'mock', input: fresh(`Format ${format}`), voice: 'mock-voice-2', response_format: format });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe(MEDIA[format]);
  expect(res.headers.get('x-cache')).toBe('MISS');
  expect(res.headers.get('x-provider')).toBe('mock');
  const data = Buffer.from(await res.arrayBuffer());
  expect(Number(res.headers.get('content-length'))).toBe(data.length);
  expect(probe(data, format)).toMatchObject({ ok: true });
  // The same audio /api/v1/generate made: its metadata, its bytes at /api/v1/audio/{hash}.
  const hash = res.headers.get('x-audio-hash')!;
  expect(hash).toMatch(/^[0-9a-f]{64}$/);
  const meta: any = await (await gw.request(`/api/v1/audio/${hash}/metadata`)).json();
  expect(meta).toMatchObject({ provider: 'mock', voice: 'mock-voice-2', format, fileSize: data.length });
  expect(meta.cost.charactersCharged).toBeGreaterThan(0);
  const stored = Buffer.from(await (await gw.request(`/api/v1/audio/${hash}`)).arrayBuffer());
  expect(stored.equals(data)).toBe(true);
});

test.each(['opus', 'aac', 'flac', 'pcm', 'mp4'])('response_format %s is refused in OpenAI’s envelope', async (format) => {
  const res = await speech({ model: 'mock', input: fresh('Unsupported'), voice: 'mock-voice-1', response_format: format });
  expect(res.status).toBe(400);
  expect(await res.json()).toEqual({
    error: { message: expect.stringContaining(`'${format}' is not served`), type: 'invalid_request_error', param: 'response_format', code: 'invalid_format' },
  });
});

test('the same request as /api/v1/generate is the same audio, from the cache', async () => {
  const input = fresh('Shared with the native path');
  const native: any = await (
    await gw.request('/api/v1/generate', { method: 'POST', json: { text: input, options: { provider: 'mock', voice: 'mock-voice-3', format: 'wav' } } })
  ).json();
  const res = await speech({ model: 'mock', input, voice: 'mock-voice-3', response_format: 'wav' });
  expect(res.status).toBe(200);
  expect(res.headers.get('x-audio-hash')).toBe(native.hash);
  expect(res.headers.get('x-cache')).toBe('HIT');
});

test('errors in OpenAI’s envelope: unknown model or voice, speed out of range, missing input, unknown field, instructions; open without a key', async () => {
  const cases: [unknown, number, string | null, string][] = [
    [{ model: 'whisper-1', input: 'Hi.', voice: 'alloy' }, 400, 'model', 'invalid_provider'],
    [{ model: 'mock', input: 'Hi.', voice: 'alloy' }, 400, 'voice', 'invalid_voice'],
    [{ model: 'mock', input: 'Hi.', voice: 'mock-voice-1', speed: 9 }, 400, 'speed', 'invalid_speed'],
    [{ model: 'mock', voice: 'mock-voice-1' }, 400, 'input', 'validation_error'],
    [{ model: 'mock', input: '   ', voice: 'mock-voice-1' }, 400, 'input', 'validation_error'],
    [{ model: 'mock', input: 'Hi.', voice: 'mock-voice-1', temperature: 1 }, 400, null, 'validation_error'],
    [{ model: 'mock', input: 'Hi.', voice: 'mock-voice-1', instructions: 'Cheerfully.' }, 400, 'instructions', 'invalid_option'],
    [{ model: 'tts-1', input: 'Hi.', voice: 'alloy', instructions: 'Cheerfully.' }, 400, 'instructions', 'invalid_option'],
    [{ model: 'mock', input: 'Hi.', voice: 'mock-voice-1', stream_format: 'sse' }, 400, 'stream_format', 'validation_error'],
  ];
  for (const [body, status, param, code] of cases) {
    const res = await speech(body);
    const answer: any = await res.json();
    expect([JSON.stringify(body), res.status, answer.error.param, answer.error.code]).toEqual([JSON.stringify(body), status, param, code]);
    expect(answer.error.type).toBe('invalid_request_error');
    expect(typeof answer.error.message).toBe('string');
  }
  const unknownField: any = await (await speech({ model: 'mock', input: 'Hi.', voice: 'mock-voice-1', temperature: 1 })).json();
  expect(unknownField.error.message).toMatch(/temperature/);

  // Open by default (no API_KEY), as /api/v1/generate: no key, or a key the gateway does not know, is served.
  for (const auth of [null, 'not-a-key-of-this-gateway']) {
    const open = await speech({ model: 'mock', input: 'Open by default.', voice: 'mock-voice-1' }, { auth });
    expect(open.status).toBe(200);
  }

  const notJson = await gw.request('/v1/audio/speech', { method: 'POST', body: 'model=mock', headers: { 'content-type': 'text/plain' } });
  expect(notJson.status).toBe(415);
  expect(((await notJson.json()) as any).error).toMatchObject({ type: 'invalid_request_error', code: 'unsupported_media_type' });

  const wrongMethod = await gw.request('/v1/audio/speech');
  expect(wrongMethod.status).toBe(405);
  expect(((await wrongMethod.json()) as any).error).toMatchObject({ type: 'invalid_request_error', code: 'method_not_allowed' });
});

test('GET /v1/models lists every name model accepts, in OpenAI’s list shape', async () => {
  const res = await gw.request('/v1/models', { auth: null });
  expect(res.status).toBe(200);
  const list: any = await res.json();
  expect(list.object).toBe('list');
  const byId = Object.fromEntries(list.data.map((m: any) => [m.id, m]));
  expect(Object.keys(byId).sort()).toEqual(['gpt-4o-mini-tts', 'mock', 'provider_a', 'provider_b', 'provider_c', 'tts-1', 'tts-1-hd']);
  expect(byId['tts-1']).toEqual({ id: 'tts-1', object: 'model', created: expect.any(Number), owned_by: 'provider_a' });
  expect(byId.mock.owned_by).toBe('mock');
  // tts-1 and tts-1-hd are provider_a's two tiers; without provider_a set up, its generation says so.
  const unconfigured = await speech({ model: 'tts-1', input: 'Hi.', voice: 'alloy' });
  expect(unconfigured.status).toBe(500);
  expect(((await unconfigured.json()) as any).error).toMatchObject({ type: 'server_error', code: 'provider_not_configured' });
});

const headerNames = (res: Response) =>
  [...res.headers.keys()].filter((name) => !['date', 'x-request-id', 'ratelimit-remaining', 'ratelimit-reset'].includes(name)).sort();

test('a cache hit is answered by the front’s seam with the bytes and headers express sends', async () => {
  const body = { model: 'mock', input: fresh('Seam'), voice: 'mock-voice-1', response_format: 'mp3' };
  const first = await speech(body);
  expect(first.headers.get('x-cache')).toBe('MISS');
  const made = Buffer.from(await first.arrayBuffer());

  const router = expressRouter();
  const full = jest.spyOn(gw.services.tts.generation, 'generate');
  const seam = await speech(body);
  expect(router).not.toHaveBeenCalled();
  expect(full).not.toHaveBeenCalled();
  jest.spyOn(gw.services.tts.generation, 'cachedGeneration').mockReturnValueOnce(undefined);
  const behind = await speech(body);
  expect(router).toHaveBeenCalled();
  expect(full).toHaveBeenCalledTimes(1);

  const seamBytes = Buffer.from(await seam.arrayBuffer());
  expect(seamBytes.equals(made)).toBe(true);
  expect(seamBytes.equals(Buffer.from(await behind.arrayBuffer()))).toBe(true);
  expect(headerNames(seam)).toEqual(headerNames(behind));
  for (const name of headerNames(seam)) expect([name, seam.headers.get(name)]).toEqual([name, behind.headers.get(name)]);
  expect(seam.headers.get('x-cache')).toBe('HIT');
  expect(seam.headers.get('access-control-expose-headers')).toMatch(/X-Audio-Hash,X-Cache/);

  // Each answer counted as a read of the file.
  const meta: any = await (await gw.request(`/api/v1/audio/${seam.headers.get('x-audio-hash')}/metadata`)).json();
  expect(meta.accessCount).toBeGreaterThanOrEqual(3);
});

test('stream_format audio: chunked audio as it is made, the same bytes as the stored file; an existing file whole', async () => {
  const input = Array.from({ length: 8 }, (_, i) => `Streamed sentence ${i + 1} of request ${++serial}, long enough to be a chunk of its own.`).join(' ');
  const body = { model: 'mock', input, voice: 'mock-voice-1', response_format: 'mp3', stream_format: 'audio' };
  const res = await speech(body);
  expect(res.status).toBe(200);
  expect(res.headers.get('transfer-encoding')).toBe('chunked');
  expect(res.headers.get('content-length')).toBeNull();
  expect(res.headers.get('x-cache')).toBe('MISS');
  expect(res.headers.get('content-type')).toBe('audio/mpeg');
  const streamed = Buffer.from(await res.arrayBuffer());
  const hash = res.headers.get('x-audio-hash')!;
  const stored = Buffer.from(await (await gw.request(`/api/v1/audio/${hash}`)).arrayBuffer());
  expect(streamed.equals(stored)).toBe(true);
  expect(probe(streamed, 'mp3')).toMatchObject({ ok: true });

  const again = await speech(body);
  expect(again.headers.get('x-cache')).toBe('HIT');
  expect(Buffer.from(await again.arrayBuffer()).equals(stored)).toBe(true);

  const refused = await speech({ ...body, voice: 'nobody' });
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as any).error).toMatchObject({ param: 'voice', code: 'invalid_voice' });
});

test('cache stats count the audio speech made, once', async () => {
  const stats = async () => (await (await gw.request('/api/v1/cache/stats', { auth: ADMIN_KEY })).json()) as any;
  const before = await stats();
  const body = { model: 'mock', input: fresh('Counted'), voice: 'mock-voice-1' };
  expect((await speech(body)).headers.get('x-cache')).toBe('MISS');
  expect((await speech(body)).headers.get('x-cache')).toBe('HIT');
  const after = await stats();
  expect(after.totalEntries).toBe(before.totalEntries + 1);
});

test('a field the client names `__proto__` or `constructor` is the error’s param as text (found by the REST fuzz)', async () => {
  for (const name of ['__proto__', 'constructor']) {
    const res = await gw.request(`/v1/audio/speech?${name}=%00`, { method: 'POST', json: { model: 'mock', input: 'Hello', voice: 'mock-voice-1' } });
    expect(res.status).toBe(400);
    const body: any = await res.json();
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'validation_error', param: name });
  }
});
