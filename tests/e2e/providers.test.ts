import { probe } from '../../domain/tts/audio';
import { startFakeVendor, sampleAudio, type FakeVendor } from '../helpers/fake-vendor';
import { startGateway, type TestGateway } from '../helpers/gateway';

let vendor: FakeVendor;
let gw: TestGateway;

/** What OpenAI's endpoint does: the requested container, WAV streamed with unknown-length sizes. */
async function openAiLike(format: string) {
  if (format === 'wav') {
    const wav = Buffer.from(await sampleAudio('wav'));
    wav.writeUInt32LE(0xffffffff, 4);
    wav.writeUInt32LE(0xffffffff, 40);
    return { status: 200, headers: { 'content-type': 'audio/wav' }, body: wav };
  }
  return { status: 200, headers: { 'content-type': 'audio/mpeg' }, body: await sampleAudio('mp3') };
}

beforeAll(async () => {
  vendor = await startFakeVendor((req) => openAiLike(req.json().response_format));
  gw = await startGateway({ PROVIDER_A_API_KEY: 'test', PROVIDER_A_BASE_URL: vendor.url });
});
afterAll(async () => {
  await gw?.close();
  await vendor?.close();
});

const generate = (text: string, options: Record<string, unknown> = {}) =>
  gw.request('/api/v1/generate', { method: 'POST', json: { text, options: { provider: 'provider_a', voice: 'echo', ...options } } });

test('provider_a is listed as configured', async () => {
  const body: any = await (await gw.request('/api/v1/providers')).json();
  expect(body.providers.find((p: any) => p.name === 'provider_a')).toMatchObject({ configured: true });
  expect(body.providers.find((p: any) => p.name === 'provider_b')).toMatchObject({ configured: false });
});

test('generate through the vendor, then the audio is served', async () => {
  vendor.reset();
  const res = await generate('Hello from a real adapter.', { speed: 1.5, quality: 'high' });
  const body: any = await res.json();
  expect(res.status).toBe(200);
  expect(body).toMatchObject({ cached: false, metadata: { provider: 'provider_a', voice: 'echo' } });
  expect(vendor.requests).toHaveLength(1);
  expect(vendor.requests[0].path).toBe('/v1/audio/speech');
  expect(vendor.requests[0].headers.authorization).toBe('Bearer test');
  expect(vendor.requests[0].json()).toEqual({ model: 'tts-1-hd', input: 'Hello from a real adapter.', voice: 'echo', response_format: 'mp3', speed: 1.5 });

  const audio = await gw.request(body.audioUrl);
  expect(audio.status).toBe(200);
  expect(audio.headers.get('content-type')).toBe('audio/mpeg');
  const bytes = Buffer.from(await audio.arrayBuffer());
  expect(bytes.equals(await sampleAudio('mp3'))).toBe(true);
});

test('long text is split into WAV calls (streamed headers repaired) and joined into one file', async () => {
  vendor.reset();
  const sentence = 'This sentence is part of a rather long text that the vendor cannot take in one call. ';
  const text = sentence.repeat(Math.ceil(9000 / sentence.length));
  const res = await generate(text);
  const body: any = await res.json();
  expect(res.status).toBe(200);
  expect(vendor.requests.length).toBeGreaterThanOrEqual(3);
  for (const r of vendor.requests) {
    expect(r.json().response_format).toBe('wav');
    expect(r.json().input.length).toBeLessThanOrEqual(4096);
  }
  const audio = Buffer.from(await (await gw.request(body.audioUrl)).arrayBuffer());
  const checked = probe(audio, 'mp3');
  expect(checked.ok).toBe(true);
  const one = probe(await sampleAudio('wav'), 'wav');
  if (checked.ok && one.ok) expect(checked.durationSeconds).toBeGreaterThan(one.durationSeconds * vendor.requests.length * 0.9);
});

test('OpenAI-compatible speech: tts-1-hd is provider_a HD; instructions go with gpt-4o-mini-tts and are part of the hash', async () => {
  vendor.reset((req) => openAiLike(req.json().response_format));
  const speech = (body: Record<string, unknown>) =>
    gw.request('/v1/audio/speech', { method: 'POST', json: { input: 'Spoken through the OpenAI path.', voice: 'nova', ...body } });
  const hd = await speech({ model: 'tts-1-hd' });
  expect(hd.status).toBe(200);
  expect(Buffer.from(await hd.arrayBuffer()).equals(await sampleAudio('mp3'))).toBe(true);
  expect(vendor.requests.map((r) => r.json())).toEqual([
    { model: 'tts-1-hd', input: 'Spoken through the OpenAI path.', voice: 'nova', response_format: 'mp3', speed: 1 },
  ]);
  // The same audio as provider_a with quality high on the native path: one hash, from the cache.
  const native: any = await (
    await gw.request('/api/v1/generate', {
      method: 'POST',
      json: { text: 'Spoken through the OpenAI path.', options: { provider: 'provider_a', voice: 'nova', quality: 'high' } },
    })
  ).json();
  expect(native).toMatchObject({ hash: hd.headers.get('x-audio-hash'), cached: true });

  vendor.reset((req) => openAiLike(req.json().response_format));
  const instructed = await speech({ model: 'gpt-4o-mini-tts', instructions: 'Slowly, and warmly.' });
  expect(instructed.status).toBe(200);
  expect(vendor.requests.map((r) => r.json())).toEqual([
    {
      model: 'gpt-4o-mini-tts',
      input: 'Spoken through the OpenAI path.',
      voice: 'nova',
      response_format: 'mp3',
      speed: 1,
      instructions: 'Slowly, and warmly.',
    },
  ]);
  const plain = await speech({ model: 'gpt-4o-mini-tts' });
  expect(plain.headers.get('x-audio-hash')).not.toBe(instructed.headers.get('x-audio-hash'));
  expect((await speech({ model: 'provider_a', instructions: 'Slowly, and warmly.' })).headers.get('x-cache')).toBe('HIT');

  // tts-1 takes none (as OpenAI's), nor do providers other than provider_a.
  for (const model of ['tts-1', 'mock']) {
    const refused = await speech({ model, voice: model === 'mock' ? 'mock-voice-1' : 'nova', instructions: 'Slowly.' });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as any).error).toMatchObject({ type: 'invalid_request_error', param: 'instructions', code: 'invalid_option' });
  }
});

test('an upstream 500 is a 502 PROVIDER_A_GENERATION_ERROR in the TTS envelope, and is counted', async () => {
  const before: any = await (await gw.request('/api/v1/stats/providers')).json();
  vendor.reset(() => ({ status: 500, body: '{"error":{"message":"The server had an error"}}' }));
  const res = await generate('This one fails upstream.');
  const body: any = await res.json();
  expect(res.status).toBe(502);
  expect(body.error).toMatchObject({
    code: 'PROVIDER_A_GENERATION_ERROR',
    provider: 'provider_a',
    details: { upstreamStatus: 500, attempts: 3, reason: 'upstream-error' },
  });
  expect(typeof body.error.message).toBe('string');
  expect(vendor.requests).toHaveLength(3);

  const after: any = await (await gw.request('/api/v1/stats/providers')).json();
  expect(after.stats.provider_a.errors).toBe(before.stats.provider_a.errors + 1);
  expect(after.stats.provider_a.requests).toBe(before.stats.provider_a.requests + 1);
});

test('a rejected credential is a 502 that says so, without retries', async () => {
  vendor.reset(() => ({ status: 401, body: '{"error":{"message":"Incorrect API key provided: test"}}' }));
  const res = await generate('Credential check.');
  const body: any = await res.json();
  expect(res.status).toBe(502);
  expect(body.error.code).toBe('PROVIDER_A_GENERATION_ERROR');
  expect(body.error.details).toMatchObject({ upstreamStatus: 401, reason: 'credentials-rejected', attempts: 1 });
  expect(body.error.message).toMatch(/rejected the credential/);
  expect(vendor.requests).toHaveLength(1);
});

test('an unconfigured vendor still answers PROVIDER_NOT_CONFIGURED', async () => {
  const res = await gw.request('/api/v1/generate', { method: 'POST', json: { text: 'Hi.', options: { provider: 'provider_b' } } });
  expect(res.status).toBe(500);
  expect(((await res.json()) as any).error.code).toBe('PROVIDER_NOT_CONFIGURED');
});
