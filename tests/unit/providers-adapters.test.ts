import { decode, probe } from '../../domain/tts/audio';
import { ProviderA } from '../../domain/tts/providers/provider-a';
import { ProviderB, providerBEmotions, providerBSpeed } from '../../domain/tts/providers/provider-b';
import { escapeXml, ProviderC, providerCPitch, providerCRate, providerCSsml } from '../../domain/tts/providers/provider-c';
import type { SynthesisRequest } from '../../domain/tts/providers/provider';
import { createProviders } from '../../domain/tts/providers/registry';
import { resolveResilience, type ResilienceOptions } from '../../domain/tts/providers/resilience';
import { repairStreamingWavHeader } from '../../domain/tts/providers/upstream-audio';
import { audioReply, sampleAudio, startFakeVendor, type FakeVendor } from '../helpers/fake-vendor';
import { httpStatusOf } from '../../transport/client-error';
import { failureOf } from '../helpers/expect-failure';

const FAST: Partial<ResilienceOptions> = { timeoutMs: 2000, maxAttempts: 3, baseBackoffMs: 5, maxBackoffMs: 20, cooldownMs: 200 };
const resilience = resolveResilience(FAST);

let vendor: FakeVendor;
beforeAll(async () => {
  await Promise.all([sampleAudio('mp3'), sampleAudio('wav'), sampleAudio('ogg')]);
  vendor = await startFakeVendor(() => audioReply('mp3'));
});
afterAll(async () => {
  await vendor.close();
});

describe('provider_a (OpenAI-style)', () => {
  const base: SynthesisRequest = { text: 'Good morning.', voice: 'nova', speed: 1.25, quality: 'standard', language: 'de', format: 'mp3' };
  const provider = () => new ProviderA({ apiKey: 'key-a', baseUrl: vendor.url, resilience });

  test('sends the documented request and returns the audio', async () => {
    vendor.reset(() => audioReply('mp3', 'audio/mpeg'));
    const audio = await provider().synthesize(base);
    expect(audio.equals(await sampleAudio('mp3'))).toBe(true);
    const [req] = vendor.requests;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/audio/speech');
    expect(req.headers.authorization).toBe('Bearer key-a');
    expect(req.headers['content-type']).toBe('application/json');
    // Language is not sent: the model detects it.
    expect(req.json()).toEqual({ model: 'tts-1', input: 'Good morning.', voice: 'nova', response_format: 'mp3', speed: 1.25 });
  });

  test('quality high selects the HD model; ogg asks for Opus; a base path prefix is kept', async () => {
    vendor.reset(() => audioReply('ogg'));
    const prefixed = new ProviderA({ apiKey: 'key-a', baseUrl: `${vendor.url}/proxy/`, resilience });
    const audio = await prefixed.synthesize({ ...base, quality: 'high', format: 'ogg' });
    expect(probe(audio, 'ogg').ok).toBe(true);
    expect(vendor.requests[0].path).toBe('/proxy/v1/audio/speech');
    expect(vendor.requests[0].json()).toMatchObject({ model: 'tts-1-hd', response_format: 'opus' });
  });

  test('streamed WAV with placeholder sizes is repaired; a declared length that is short is not', async () => {
    const wav = await sampleAudio('wav');
    const streamed = Buffer.from(wav);
    streamed.writeUInt32LE(0xffffffff, 4);
    streamed.writeUInt32LE(0xffffffff, 40);
    vendor.reset(() => ({ status: 200, body: streamed }));
    const audio = await provider().synthesize({ ...base, format: 'wav' });
    expect(vendor.requests[0].json().response_format).toBe('wav');
    expect(audio.equals(wav)).toBe(true);
    expect((await decode(audio, 'wav')).samples.length).toBe((wav.length - 44) / 2);

    // Unit level: odd trailing byte dropped, real lengths untouched.
    const odd = Buffer.concat([streamed, Buffer.from([1])]);
    expect(repairStreamingWavHeader(odd).readUInt32LE(40)).toBe(wav.length - 44);
    expect(repairStreamingWavHeader(wav)).toBe(wav);
  });

  test('upstream 500 maps to PROVIDER_A_GENERATION_ERROR', async () => {
    vendor.reset(() => ({ status: 500 }));
    const err = await failureOf(provider().synthesize(base));
    expect(err).toMatchObject({ code: 'PROVIDER_A_GENERATION_ERROR', provider: 'provider_a' });
    expect(httpStatusOf(err.code)).toBe(502);
    expect(err.details).toMatchObject({ upstreamStatus: 500, attempts: 3, reason: 'upstream-error' });
  });
});

describe('provider_b (Cartesia-style)', () => {
  const base: SynthesisRequest = {
    text: 'Welcome aboard.',
    voice: 'broadway-diva',
    speed: 1,
    quality: 'medium',
    language: 'pt-BR',
    format: 'mp3',
    emotion: { positivity: 0.8, energy: 0.4 },
  };
  const provider = (voiceIds?: Record<string, string>) => new ProviderB({ apiKey: 'key-b', baseUrl: vendor.url, resilience, voiceIds });

  test('speed maps onto the vendor control by log2, neutral at 1, clamped to [-1, 1]', () => {
    expect(providerBSpeed(1)).toBe(0);
    expect(providerBSpeed(0.5)).toBe(-1);
    expect(providerBSpeed(2)).toBe(1);
    expect(providerBSpeed(1.5)).toBeCloseTo(0.585, 3);
    expect(providerBSpeed(0.75)).toBeCloseTo(-0.415, 3);
    expect(providerBSpeed(4)).toBe(1);
    expect(providerBSpeed(0.25)).toBe(-1);
  });

  test('emotion axes map onto vendor tags by sign and magnitude', () => {
    expect(providerBEmotions(undefined)).toEqual([]);
    expect(providerBEmotions({ positivity: 0.05, energy: -0.09 })).toEqual([]);
    expect(providerBEmotions({ positivity: 0.2 })).toEqual(['positivity:lowest']);
    expect(providerBEmotions({ positivity: 0.4 })).toEqual(['positivity:low']);
    expect(providerBEmotions({ positivity: 0.6 })).toEqual(['positivity']);
    expect(providerBEmotions({ positivity: 0.8 })).toEqual(['positivity:high']);
    expect(providerBEmotions({ positivity: 1 })).toEqual(['positivity:highest']);
    expect(providerBEmotions({ positivity: -1 })).toEqual(['sadness:highest']);
    expect(providerBEmotions({ positivity: -0.4, energy: 0.95 })).toEqual(['sadness:low', 'surprise:highest']);
    expect(providerBEmotions({ energy: -1 })).toEqual([]);
  });

  test('sends the documented request (mp3)', async () => {
    vendor.reset(() => audioReply('mp3'));
    const audio = await provider({ 'broadway-diva': 'a0e99841-438c-4a64-b679-ae501e7d6091' }).synthesize({ ...base, speed: 2 });
    expect(probe(audio, 'mp3').ok).toBe(true);
    const [req] = vendor.requests;
    expect(req.path).toBe('/tts/bytes');
    expect(req.headers['x-api-key']).toBe('key-b');
    expect(req.headers['cartesia-version']).toBe('2024-06-10');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers.authorization).toBeUndefined();
    expect(req.json()).toEqual({
      model_id: 'sonic-2',
      transcript: 'Welcome aboard.',
      voice: {
        mode: 'id',
        id: 'a0e99841-438c-4a64-b679-ae501e7d6091',
        __experimental_controls: { speed: 1, emotion: ['positivity:high', 'surprise:low'] },
      },
      output_format: { container: 'mp3', sample_rate: 24000, bit_rate: 128000 },
      language: 'pt',
    });
  });

  test('wav asks for 16-bit PCM; ogg asks for wav and transcodes it', async () => {
    vendor.reset(() => audioReply('wav'));
    const wav = await provider().synthesize({ ...base, format: 'wav' });
    expect(wav.equals(await sampleAudio('wav'))).toBe(true);
    expect(vendor.requests[0].json().output_format).toEqual({ container: 'wav', sample_rate: 24000, encoding: 'pcm_s16le' });
    expect(vendor.requests[0].json().voice.id).toBe('broadway-diva');

    vendor.reset(() => audioReply('wav'));
    const ogg = await provider().synthesize({ ...base, format: 'ogg' });
    expect(vendor.requests[0].json().output_format.container).toBe('wav');
    const checked = probe(ogg, 'ogg');
    expect(checked.ok).toBe(true);
    const source = probe(await sampleAudio('wav'), 'wav');
    if (checked.ok && source.ok) expect(Math.abs(checked.durationSeconds - source.durationSeconds)).toBeLessThan(0.1);
  });

  test('failures map to PROVIDER_B_GENERATION_ERROR with the upstream status', async () => {
    for (const [status, reason, attempts] of [
      [400, 'bad-request', 1],
      [401, 'credentials-rejected', 1],
      [500, 'upstream-error', 3],
    ] as const) {
      vendor.reset(() => ({ status, body: JSON.stringify({ message: `vendor says ${status}` }) }));
      const err = await failureOf(provider().synthesize(base));
      expect(err).toMatchObject({ code: 'PROVIDER_B_GENERATION_ERROR', provider: 'provider_b' });
      expect(httpStatusOf(err.code)).toBe(502);
      expect(err.details).toMatchObject({ upstreamStatus: status, reason, attempts });
      expect(vendor.requests).toHaveLength(attempts);
    }
  });

  test('truncated wav for an ogg request is an error, not audio', async () => {
    const wav = await sampleAudio('wav');
    vendor.reset(() => ({ status: 200, body: wav.subarray(0, 1000) }));
    const err = await failureOf(provider().synthesize({ ...base, format: 'ogg' }));
    expect(err.details).toMatchObject({ upstreamStatus: 200, reason: 'invalid-audio' });
  });
});

describe('provider_c (Azure-style)', () => {
  const base: SynthesisRequest = { text: 'Hi.', voice: 'en-US-JennyNeural', speed: 1.2, quality: 'medium', language: 'en-US', format: 'mp3', pitch: 2 };
  const provider = () => new ProviderC({ apiKey: 'key-c', baseUrl: vendor.url, resilience });

  test('rate, pitch and escaping rules', () => {
    expect(providerCRate(1.2)).toBe(20);
    expect(providerCRate(0.5)).toBe(-50);
    expect(providerCRate(2)).toBe(100);
    expect(providerCRate(1)).toBe(0);
    expect(providerCPitch(2)).toBe(2);
    expect(providerCPitch(50)).toBe(12);
    expect(providerCPitch(-50)).toBe(-12);
    expect(providerCPitch(-3.14)).toBe(-3.1);
    expect(providerCPitch(undefined)).toBe(0);
    expect(escapeXml(`Tom & Jerry <b>"hi"</b> it's\u0007`)).toBe('Tom &amp; Jerry &lt;b&gt;&quot;hi&quot;&lt;/b&gt; it&apos;s ');
  });

  test('SSML leaves out neutral prosody', () => {
    expect(providerCSsml({ ...base, speed: 1, pitch: 0 })).toBe(
      "<speak version='1.0' xmlns='http://www.w3.org/2001/10/synthesis' xml:lang='en-US'><voice name='en-US-JennyNeural'>Hi.</voice></speak>",
    );
    expect(providerCSsml({ ...base, speed: 0.75, pitch: -60, language: 'en-GB' })).toContain(
      "xml:lang='en-GB'><voice name='en-US-JennyNeural'><prosody rate='-25%' pitch='-12st'>Hi.</prosody>",
    );
  });

  test('sends the documented request with escaped SSML', async () => {
    vendor.reset(() => audioReply('mp3'));
    const audio = await provider().synthesize({ ...base, text: `Q&A: 5 < 6 > 4, "quoted" & 'single'` });
    expect(probe(audio, 'mp3').ok).toBe(true);
    const [req] = vendor.requests;
    expect(req.path).toBe('/cognitiveservices/v1');
    expect(req.headers['ocp-apim-subscription-key']).toBe('key-c');
    expect(req.headers['content-type']).toBe('application/ssml+xml');
    expect(req.headers['x-microsoft-outputformat']).toBe('audio-24khz-48kbitrate-mono-mp3');
    expect(req.headers['user-agent']).toBe('tts-gateway');
    expect(req.text).toBe(
      "<speak version='1.0' xmlns='http://www.w3.org/2001/10/synthesis' xml:lang='en-US'><voice name='en-US-JennyNeural'>" +
        "<prosody rate='+20%' pitch='+2st'>Q&amp;A: 5 &lt; 6 &gt; 4, &quot;quoted&quot; &amp; &apos;single&apos;</prosody></voice></speak>",
    );
  });

  test('output format header per format and quality', async () => {
    const cases = [
      ['wav', 'medium', 'riff-24khz-16bit-mono-pcm'],
      ['ogg', 'medium', 'ogg-24khz-16bit-mono-opus'],
      ['mp3', 'high', 'audio-24khz-96kbitrate-mono-mp3'],
    ] as const;
    for (const [format, quality, header] of cases) {
      vendor.reset(() => audioReply(format));
      const audio = await provider().synthesize({ ...base, format, quality });
      expect(probe(audio, format).ok).toBe(true);
      expect(vendor.requests[0].headers['x-microsoft-outputformat']).toBe(header);
    }
  });

  test('429 with Retry-After is retried after the wait; 403 is a rejected credential', async () => {
    vendor.reset(async (_r, n) => (n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : audioReply('mp3')));
    const started = Date.now();
    await provider().synthesize(base);
    expect(vendor.requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);

    vendor.reset(() => ({ status: 403 }));
    const err = await failureOf(provider().synthesize(base));
    expect(err).toMatchObject({ code: 'PROVIDER_C_GENERATION_ERROR', provider: 'provider_c' });
    expect(err.details).toMatchObject({ upstreamStatus: 403, reason: 'credentials-rejected', attempts: 1 });
    expect(err.message).toMatch(/rejected the credential.*PROVIDER_C_API_KEY/);
  });
});

describe('registry', () => {
  const req: SynthesisRequest = { text: 'x', voice: 'alloy', speed: 1, quality: 'standard', language: 'en', format: 'mp3' };

  test('vendors without credentials are not configured and say which variable to set', async () => {
    const p = createProviders({ mockLatencyMs: 0, provider_a: {}, provider_b: { baseUrl: 'http://x' }, provider_c: { apiKey: 'k' } });
    expect(p.provider_a.isConfigured()).toBe(false);
    expect(p.provider_b.isConfigured()).toBe(false);
    expect(p.provider_c.isConfigured()).toBe(false); // key without region or base URL
    expect(p.mock.isConfigured()).toBe(true);
    const err = await failureOf(p.provider_a.synthesize(req));
    expect(err).toMatchObject({ code: 'PROVIDER_NOT_CONFIGURED' });
    expect(httpStatusOf(err.code)).toBe(500);
    expect((await failureOf(p.provider_c.synthesize(req))).details).toMatchObject({ variable: 'PROVIDER_C_REGION' });
  });

  test('a key makes a vendor configured; resilience options reach its client', async () => {
    const p = createProviders({
      mockLatencyMs: 0,
      provider_a: { apiKey: 'ka', baseUrl: vendor.url, resilience: { maxConcurrency: 2 } },
      provider_b: { apiKey: 'kb' },
      provider_c: { apiKey: 'kc', region: 'westeurope' },
      resilience: { maxConcurrency: 5, baseBackoffMs: 1, maxBackoffMs: 2, maxAttempts: 1 },
    });
    expect(p.provider_a).toBeInstanceOf(ProviderA);
    expect(p.provider_b).toBeInstanceOf(ProviderB);
    expect(p.provider_c).toBeInstanceOf(ProviderC);
    expect([p.provider_a, p.provider_b, p.provider_c].every((x) => x.isConfigured())).toBe(true);

    vendor.reset(async () => ({ ...(await audioReply('mp3')), delayMs: 60 }));
    await Promise.all(Array.from({ length: 6 }, () => p.provider_a.synthesize(req)));
    expect(vendor.maxInFlight).toBe(2);
    vendor.reset(() => ({ status: 500 }));
    expect((await failureOf(p.provider_a.synthesize(req))).details).toMatchObject({ attempts: 1 });
  });
});
