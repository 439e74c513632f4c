import { DomainError } from '../../domain/errors';
import { probe } from '../../domain/tts/audio';
import type { SpeechStream, SynthesisRequest } from '../../domain/tts/providers/provider';
import { ProviderA } from '../../domain/tts/providers/provider-a';
import { ProviderB } from '../../domain/tts/providers/provider-b';
import { ProviderC } from '../../domain/tts/providers/provider-c';
import { resolveResilience, type ResilienceOptions } from '../../domain/tts/providers/resilience';
import { WavStreamDecoder } from '../../domain/tts/streamed-wav';
import { decode } from '../../domain/tts/audio';
import { sampleAudio, startFakeVendor, type FakeReply, type FakeVendor } from '../helpers/fake-vendor';

/**
 * The adapters' streaming calls against a loopback vendor that streams its body part by part. The
 * vendor holds its later parts until the consumer has taken the first bytes (gates), so every
 * ordering asserted here is certain, not a matter of timing.
 */

const FAST: Partial<ResilienceOptions> = {
  timeoutMs: 5000,
  maxAttempts: 4,
  baseBackoffMs: 5,
  maxBackoffMs: 20,
  failureThreshold: 100,
  maxConcurrency: 8,
};
const REQ: SynthesisRequest = { text: 'Hello there.', voice: 'alloy', speed: 1, quality: 'standard', language: 'en', format: 'wav' };

let vendor: FakeVendor;
beforeAll(async () => {
  await Promise.all([sampleAudio('mp3'), sampleAudio('wav'), sampleAudio('ogg')]);
  vendor = await startFakeVendor(() => ({ status: 500 }));
});
afterAll(async () => {
  await vendor.close();
});

const providerA = (overrides: Partial<ResilienceOptions> = {}) =>
  new ProviderA({ apiKey: 'k', baseUrl: vendor.url, resilience: resolveResilience(FAST, overrides) });

function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

async function streamingWav(): Promise<Buffer> {
  const wav = Buffer.from(await sampleAudio('wav'));
  wav.writeUInt32LE(0xffffffff, 4);
  wav.writeUInt32LE(0xffffffff, 40);
  return wav;
}

/** Consumes a stream; `onFirst` runs when the first bytes are taken. Returns what was taken and the error, if any. */
async function consume(stream: SpeechStream, onFirst: () => void = () => undefined): Promise<{ parts: Buffer[]; error?: DomainError }> {
  const parts: Buffer[] = [];
  try {
    for await (const part of stream) {
      parts.push(part);
      if (parts.length === 1) onFirst();
    }
    return { parts };
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return { parts, error: err as DomainError };
  }
}

test('the first bytes are handed on while the vendor still holds the rest; the whole is the checked, repaired file', async () => {
  const wav = await streamingWav();
  const rest = gate();
  let restSent = false;
  vendor.reset(() => ({
    status: 200,
    parts: [{ bytes: wav.subarray(0, 2000) }, { after: rest.promise, bytes: wav.subarray(2000), sent: () => (restSent = true) }],
  }));
  const stream = providerA().synthesizeStream(REQ);
  let restSentAtFirst: boolean | undefined;
  const { parts, error } = await consume(stream, () => {
    restSentAtFirst = restSent;
    rest.open();
  });
  expect(error).toBeUndefined();
  expect(restSentAtFirst).toBe(false);
  // The vendor's own bytes, unrepaired; the whole has the exact sizes and passes the probe.
  expect(Buffer.concat(parts).equals(wav)).toBe(true);
  const whole = await stream.whole;
  expect(whole.readUInt32LE(40)).toBe(wav.length - 44);
  expect(probe(whole, 'wav').ok).toBe(true);
  expect(vendor.requests).toHaveLength(1);
});

test('failures before the first byte is taken are retried and never seen: 503, a cut before any byte, a body that is not audio', async () => {
  const wav = await streamingWav();
  vendor.reset((_req, n): FakeReply => {
    if (n === 1) return { status: 503 };
    if (n === 2) return { status: 200, parts: [{ cut: true }] };
    if (n === 3) return { status: 200, parts: [{ bytes: '{"status":"queued","detail":"not ready"}' }] };
    return { status: 200, parts: [{ bytes: wav.subarray(0, 5) }, { bytes: wav.subarray(5) }] };
  });
  const { parts, error } = await consume(providerA().synthesizeStream(REQ));
  expect(error).toBeUndefined();
  expect(Buffer.concat(parts).equals(wav)).toBe(true);
  expect(vendor.requests).toHaveLength(4);
});

test('a failure after the first byte ends the stream with the provider error, without a retry, and counts against the circuit', async () => {
  const wav = await streamingWav();
  const taken = gate();
  vendor.reset(() => ({ status: 200, parts: [{ bytes: wav.subarray(0, 4000) }, { after: taken.promise, cut: true }] }));
  const provider = providerA({ failureThreshold: 1 });
  const stream = provider.synthesizeStream(REQ);
  const { parts, error } = await consume(stream, taken.open);
  expect(parts.length).toBeGreaterThan(0);
  expect(error?.code).toBe('PROVIDER_A_GENERATION_ERROR');
  expect(error?.details).toMatchObject({ reason: 'network', attempts: 1, upstreamStatus: null });
  await expect(stream.whole).rejects.toBe(error);
  expect(vendor.requests).toHaveLength(1);
  expect(provider.client.breaker.state).toBe('open');
});

test('a body cut short that ends cleanly fails the end-of-body check after its bytes were taken', async () => {
  const wav = Buffer.from(await sampleAudio('wav')); // exact sizes: a short body is truncation
  const taken = gate();
  vendor.reset(() => ({ status: 200, parts: [{ bytes: wav.subarray(0, 3000) }, { after: taken.promise, bytes: wav.subarray(3000, wav.length - 1000) }] }));
  const { parts, error } = await consume(providerA().synthesizeStream(REQ), taken.open);
  expect(parts.length).toBeGreaterThan(0);
  expect(error?.details).toMatchObject({ reason: 'invalid-audio', attempts: 1, upstreamStatus: 200 });
  expect(String(error?.details?.audioProblem)).toMatch(/truncated/);
});

test('the size limit holds for streamed bodies: before the first byte it fails at once, after it the stream ends', async () => {
  const wav = await streamingWav();
  const taken = gate();
  vendor.reset(() => ({ status: 200, parts: [{ bytes: wav.subarray(0, 1000) }, { after: taken.promise, bytes: wav.subarray(1000) }] }));
  const { parts, error } = await consume(providerA({ maxResponseBytes: 2000 }).synthesizeStream(REQ), taken.open);
  expect(Buffer.concat(parts).length).toBe(1000);
  expect(error?.details).toMatchObject({ reason: 'response-too-large', attempts: 1 });

  vendor.reset(() => ({ status: 200, body: wav }));
  const declared = await consume(providerA({ maxResponseBytes: 2000 }).synthesizeStream(REQ));
  expect(declared.parts).toHaveLength(0);
  expect(declared.error?.details).toMatchObject({ reason: 'response-too-large', attempts: 1 });
});

test('provider_b streams MP3 and WAV as they come, and Ogg (made here from its WAV) whole at the end; provider_c streams', async () => {
  const b = new ProviderB({ apiKey: 'k', baseUrl: vendor.url, resilience: resolveResilience(FAST) });
  const mp3 = await sampleAudio('mp3');
  vendor.reset(() => ({ status: 200, parts: [{ bytes: mp3.subarray(0, 1000) }, { bytes: mp3.subarray(1000) }] }));
  const streamed = await consume(b.synthesizeStream({ ...REQ, format: 'mp3' }));
  expect(Buffer.concat(streamed.parts).equals(mp3)).toBe(true);
  expect(vendor.requests[0].path).toBe('/tts/bytes');

  const wav = await sampleAudio('wav');
  vendor.reset(() => ({ status: 200, parts: [{ bytes: wav.subarray(0, 1000) }, { bytes: wav.subarray(1000) }] }));
  const ogg = await consume(b.synthesizeStream({ ...REQ, format: 'ogg' }));
  expect(ogg.parts).toHaveLength(1);
  expect(probe(ogg.parts[0], 'ogg').ok).toBe(true);

  const c = new ProviderC({ apiKey: 'k', baseUrl: vendor.url, resilience: resolveResilience(FAST) });
  vendor.reset(() => ({ status: 200, parts: [{ bytes: wav.subarray(0, 1000) }, { bytes: wav.subarray(1000) }] }));
  const fromC = await consume(c.synthesizeStream(REQ));
  expect(Buffer.concat(fromC.parts).equals(wav)).toBe(true);
  expect(vendor.requests[0].path).toBe('/cognitiveservices/v1');
});

test('cancelling the caller ends a stream under way', async () => {
  const wav = await streamingWav();
  const taken = gate();
  vendor.reset(() => ({ status: 200, parts: [{ bytes: wav.subarray(0, 1000) }, { after: new Promise(() => undefined) }] }));
  const caller = new AbortController();
  const { parts, error } = await consume(providerA().synthesizeStream(REQ, caller.signal), () => {
    taken.open();
    caller.abort(new Error('client went away'));
  });
  expect(parts).toHaveLength(1);
  expect(error?.details).toMatchObject({ reason: 'aborted' });
});

test('WAV decoded as it arrives, in pieces of any size, equals the whole file decoded', async () => {
  const wav = await streamingWav();
  const whole = await decode(await sampleAudio('wav'), 'wav');
  for (const step of [1, 7, 45, 1000, wav.length]) {
    const decoder = new WavStreamDecoder();
    const pieces: Float32Array[] = [];
    for (let at = 0; at < wav.length; at += step) pieces.push(...decoder.push(wav.subarray(at, at + step)));
    const samples = new Float32Array(pieces.reduce((n, p) => n + p.length, 0));
    pieces.reduce((at, p) => (samples.set(p, at), at + p.length), 0);
    expect(decoder.sampleRate).toBe(whole.sampleRate);
    expect(Buffer.from(samples.buffer).equals(Buffer.from(whole.samples.buffer))).toBe(true);
  }
});
