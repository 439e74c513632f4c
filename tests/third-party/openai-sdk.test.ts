import OpenAI from 'openai';
import { probe } from '../../domain/tts/audio';
import { ADMIN_KEY, issueKey, useGateway } from '../helpers/gateway';

/**
 * The official openai SDK (6.x) against the gateway's OpenAI-compatible speech, as a user points it:
 * `baseURL` = the gateway's /v1, `apiKey` = a gateway key. The gateway runs keyed (API_KEY set, as in
 * production) so a key that is not valid is refused; each speech key has a character budget.
 */
const API_KEY = 'openai-sdk-suite-key';
const CHARS_PER_MINUTE = 4000;
const gw = useGateway({ API_KEY, TTS_CHARS_PER_MINUTE: String(CHARS_PER_MINUTE) });

/** No retries: a refusal is what the test is about, not something to wait out. */
const client = (apiKey = API_KEY) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 0 });

let serial = 0;
const fresh = (what: string) => `${what}, request ${++serial} of the openai SDK suite.`;
const bytesOf = async (res: Response) => Buffer.from(await res.arrayBuffer());
const cacheStats = async () => (await (await gw.request('/api/v1/cache/stats', { auth: ADMIN_KEY })).json()) as { totalEntries: number };

test('speech.create makes mp3 and wav; a repeat comes from the cache byte for byte and shows in the cache stats', async () => {
  const openai = client();
  const before = await cacheStats();
  const mp3Request = { model: 'mock', input: fresh('An mp3 from the SDK'), voice: 'mock-voice-1', response_format: 'mp3' } as const;
  const { data: mp3, response } = await openai.audio.speech.create(mp3Request).withResponse();
  expect(response.headers.get('content-type')).toBe('audio/mpeg');
  expect(response.headers.get('x-cache')).toBe('MISS');
  const made = await bytesOf(mp3);
  expect(probe(made, 'mp3')).toMatchObject({ ok: true });

  const wav = await bytesOf(
    await openai.audio.speech.create({ model: 'mock', input: fresh('A wav from the SDK'), voice: 'mock-voice-2', response_format: 'wav' }),
  );
  expect(wav.subarray(0, 4).toString('latin1')).toBe('RIFF');
  expect(probe(wav, 'wav')).toMatchObject({ ok: true });

  const repeat = await openai.audio.speech.create(mp3Request).withResponse();
  expect(repeat.response.headers.get('x-cache')).toBe('HIT');
  expect(repeat.response.headers.get('x-audio-hash')).toBe(response.headers.get('x-audio-hash'));
  expect((await bytesOf(repeat.data)).equals(made)).toBe(true);

  const after = await cacheStats();
  expect(after.totalEntries).toBe(before.totalEntries + 2);
  const meta: any = await (await gw.request(`/api/v1/audio/${response.headers.get('x-audio-hash')}/metadata`, { auth: ADMIN_KEY })).json();
  expect(meta.accessCount).toBe(2);
  expect(meta).toMatchObject({ provider: 'mock', voice: 'mock-voice-1', format: 'mp3' });
});

test('an unknown voice raises BadRequestError, with OpenAI’s param and code', async () => {
  const failure = await client()
    .audio.speech.create({ model: 'mock', input: 'Hello.', voice: 'alloy' })
    .catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
  const err = failure as InstanceType<typeof OpenAI.BadRequestError>;
  expect(err.status).toBe(400);
  expect(err.param).toBe('voice');
  expect(err.code).toBe('invalid_voice');
  expect(err.type).toBe('invalid_request_error');
  expect(err.message).toMatch(/alloy/);

  const format = await client()
    .audio.speech.create({ model: 'mock', input: 'Hello.', voice: 'mock-voice-1', response_format: 'flac' })
    .catch((e: unknown) => e);
  expect(format).toBeInstanceOf(OpenAI.BadRequestError);
  expect((format as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('response_format');
});

test('a key the gateway does not know raises AuthenticationError; a key without tts:generate PermissionDeniedError', async () => {
  const failure = await client('sk-not-a-gateway-key')
    .audio.speech.create({ model: 'mock', input: 'Hello.', voice: 'mock-voice-1' })
    .catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(OpenAI.AuthenticationError);
  expect((failure as InstanceType<typeof OpenAI.AuthenticationError>).status).toBe(401);

  const reader = await issueKey(gw, ['tts:read']);
  const denied = await client(reader)
    .audio.speech.create({ model: 'mock', input: 'Hello.', voice: 'mock-voice-1' })
    .catch((e: unknown) => e);
  expect(denied).toBeInstanceOf(OpenAI.PermissionDeniedError);

  // An issued key with tts:generate works as the deployment key does.
  const speaker = await issueKey(gw, ['tts:generate']);
  const ok = await bytesOf(await client(speaker).audio.speech.create({ model: 'mock', input: fresh('An issued key'), voice: 'mock-voice-3' }));
  expect(probe(ok, 'mp3')).toMatchObject({ ok: true });
});

test('a spent character budget raises RateLimitError', async () => {
  const key = await issueKey(gw, ['tts:generate', 'tts:read']);
  const openai = client(key);
  const long = (n: number) => (fresh('Budget') + ' ' + 'Words to spend the budget on. '.repeat(200)).slice(0, n);
  await openai.audio.speech.create({ model: 'mock', input: long(CHARS_PER_MINUTE - 500), voice: 'mock-voice-1' });
  const failure = await openai.audio.speech.create({ model: 'mock', input: long(1000), voice: 'mock-voice-1' }).catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
  const err = failure as InstanceType<typeof OpenAI.RateLimitError>;
  expect(err.status).toBe(429);
  expect(err.code).toBe('rate_limit_exceeded');
  expect(err.headers?.get('retry-after')).toMatch(/^\d+$/);
});

test('stream_format audio: the audio arrives in chunks as it is made, the same bytes as the stored file', async () => {
  const input = Array.from({ length: 6 }, (_, i) => `Streamed sentence ${i + 1} of ${fresh('a long text')}`).join(' ');
  const { data, response } = await client()
    .audio.speech.create({ model: 'mock', input, voice: 'mock-voice-1', response_format: 'mp3', stream_format: 'audio' })
    .withResponse();
  expect(response.headers.get('transfer-encoding')).toBe('chunked');
  expect(response.headers.get('x-cache')).toBe('MISS');
  const parts: Buffer[] = [];
  for await (const part of data.body as unknown as AsyncIterable<Uint8Array>) parts.push(Buffer.from(part));
  expect(parts.length).toBeGreaterThan(0);
  const streamed = Buffer.concat(parts);
  const stored = await bytesOf(await gw.request(`/api/v1/audio/${response.headers.get('x-audio-hash')}`, { auth: ADMIN_KEY }));
  expect(streamed.equals(stored)).toBe(true);
  expect(probe(streamed, 'mp3')).toMatchObject({ ok: true });
});

test('models.list names the providers and the vendor models that map onto them', async () => {
  const models = [];
  for await (const model of client().models.list()) models.push(model);
  expect(models.map((m) => m.id).sort()).toEqual(['gpt-4o-mini-tts', 'mock', 'provider_a', 'provider_b', 'provider_c', 'tts-1', 'tts-1-hd']);
  for (const m of models) expect(m).toEqual({ id: m.id, object: 'model', created: expect.any(Number), owned_by: expect.any(String) });
  expect(models.find((m) => m.id === 'tts-1-hd')?.owned_by).toBe('provider_a');
  const hd = await client()
    .audio.speech.create({ model: 'tts-1-hd', input: 'Hello.', voice: 'nova' })
    .catch((e: unknown) => e);
  // provider_a is not set up here: its generation says so, in OpenAI's terms.
  expect(hd).toBeInstanceOf(OpenAI.InternalServerError);
  expect((hd as InstanceType<typeof OpenAI.InternalServerError>).code).toBe('provider_not_configured');
});
