import { type DomainError } from '../../domain/errors';
import { httpStatusOf } from '../../transport/client-error';
import { probe } from '../../domain/tts/audio';
import { ProviderA } from '../../domain/tts/providers/provider-a';
import type { UpstreamFailureRecord } from '../../domain/tts/providers/http-client';
import type { SynthesisRequest } from '../../domain/tts/providers/provider';
import { backoffDelayMs, CircuitBreaker, parseRetryAfter, resolveResilience, Semaphore, type ResilienceOptions } from '../../domain/tts/providers/resilience';
import { audioReply, sampleAudio, startFakeVendor, type FakeVendor } from '../helpers/fake-vendor';
import { failureOf } from '../helpers/expect-failure';

const FAST: Partial<ResilienceOptions> = {
  timeoutMs: 1500,
  maxAttempts: 3,
  baseBackoffMs: 5,
  maxBackoffMs: 20,
  maxRetryAfterMs: 3000,
  failureThreshold: 100,
  cooldownMs: 250,
  maxConcurrency: 8,
};

const REQ: SynthesisRequest = { text: 'Hello there.', voice: 'alloy', speed: 1, quality: 'standard', language: 'en', format: 'mp3' };

/** What the adapters reported for the log (vendor text, redacted). */
const reported: UpstreamFailureRecord[] = [];

function providerA(vendor: FakeVendor, overrides: Partial<ResilienceOptions> = {}) {
  return new ProviderA({
    apiKey: 'sk-secret-key-123',
    baseUrl: vendor.url,
    resilience: resolveResilience(FAST, overrides),
    onFailure: (f) => reported.push(f),
  });
}

describe('retry timing', () => {
  test('Retry-After as seconds, as an HTTP date, and unreadable', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('0.5', now)).toBe(500);
    expect(parseRetryAfter('Tue, 01 Jan 2030 00:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Mon, 31 Dec 2029 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  test('full jitter stays under an exponentially growing, capped ceiling', () => {
    const opts = { baseBackoffMs: 100, maxBackoffMs: 1000 };
    expect(backoffDelayMs(1, opts, () => 0.999999)).toBe(100);
    expect(backoffDelayMs(2, opts, () => 0.999999)).toBe(200);
    expect(backoffDelayMs(3, opts, () => 0.999999)).toBe(400);
    expect(backoffDelayMs(10, opts, () => 0.999999)).toBe(1000);
    expect(backoffDelayMs(3, opts, () => 0)).toBe(0);
    for (let i = 0; i < 50; i++) expect(backoffDelayMs(3, opts)).toBeLessThanOrEqual(400);
  });

  test('resilience options are validated', () => {
    expect(() => resolveResilience({ maxAttempts: 0 })).toThrow(RangeError);
    expect(() => resolveResilience({ timeoutMs: -1 })).toThrow(RangeError);
    expect(resolveResilience({ timeoutMs: 5 }, { maxAttempts: 1 })).toMatchObject({ timeoutMs: 5, maxAttempts: 1, failureThreshold: 5 });
  });
});

describe('circuit breaker', () => {
  test('opens after N consecutive failures, admits one trial after the cool-down, closes on success', () => {
    let now = 1000;
    const breaker = new CircuitBreaker({ failureThreshold: 3, cooldownMs: 100 }, () => now);
    breaker.onFailure();
    breaker.onFailure();
    breaker.onSuccess(); // success resets the count
    breaker.onFailure();
    breaker.onFailure();
    expect(breaker.state).toBe('closed');
    breaker.onFailure();
    expect(breaker.state).toBe('open');
    expect(breaker.tryPass()).toBe(false);
    expect(breaker.retryInMs).toBe(100);
    now += 100;
    expect(breaker.state).toBe('half-open');
    expect(breaker.tryPass()).toBe(true);
    expect(breaker.tryPass()).toBe(false); // only one trial
    breaker.onSuccess();
    expect(breaker.state).toBe('closed');
    expect(breaker.tryPass()).toBe(true);
  });

  test('a failed trial opens the circuit for another cool-down; an abandoned trial frees the slot', () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failureThreshold: 1, cooldownMs: 50 }, () => now);
    breaker.onFailure();
    now = 50;
    expect(breaker.tryPass()).toBe(true);
    breaker.onAbandon();
    expect(breaker.tryPass()).toBe(true);
    breaker.onFailure();
    expect(breaker.state).toBe('open');
    now = 99;
    expect(breaker.tryPass()).toBe(false);
    now = 100;
    expect(breaker.tryPass()).toBe(true);
  });
});

describe('semaphore', () => {
  test('caps concurrency, serves waiters in order, and lets a waiter give up', async () => {
    const sem = new Semaphore(2);
    const r1 = await sem.acquire();
    const r2 = await sem.acquire();
    const order: number[] = [];
    const p3 = sem.acquire().then((r) => (order.push(3), r));
    const abort = new AbortController();
    const p4 = sem.acquire(abort.signal);
    const p5 = sem.acquire().then((r) => (order.push(5), r));
    expect(sem.inFlight).toBe(2);
    expect(sem.waiting).toBe(3);
    abort.abort(new Error('gave up'));
    await expect(p4).rejects.toThrow('gave up');
    r1();
    r1(); // releasing twice is harmless
    const r3 = await p3;
    expect(sem.inFlight).toBe(2);
    r2();
    const r5 = await p5;
    expect(order).toEqual([3, 5]);
    r3();
    r5();
    expect(sem.inFlight).toBe(0);
  });
});

describe('resilient upstream calls (provider_a against a loopback vendor)', () => {
  let vendor: FakeVendor;
  beforeAll(async () => {
    // Encode the fixtures up front: the first encode loads the codec and would eat the short timeouts.
    await Promise.all([sampleAudio('mp3'), sampleAudio('wav')]);
    vendor = await startFakeVendor(() => audioReply('mp3'));
  });
  afterAll(async () => {
    await vendor.close();
  });

  test('success returns the vendor audio unchanged', async () => {
    vendor.reset(() => audioReply('mp3', 'audio/mpeg'));
    const audio = await providerA(vendor).synthesize(REQ);
    expect(audio.equals(await sampleAudio('mp3'))).toBe(true);
    expect(vendor.requests).toHaveLength(1);
  });

  test('400 is not retried; the client gets code, status and reason, the log the vendor message', async () => {
    vendor.reset(() => ({ status: 400, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: { message: 'Input is too long' } }) }));
    reported.length = 0;
    const err = await failureOf(providerA(vendor).synthesize(REQ));
    expect(err.code).toBe('PROVIDER_A_GENERATION_ERROR');
    expect(httpStatusOf(err.code)).toBe(502);
    expect(err.provider).toBe('provider_a');
    expect(err.details).toEqual({ upstreamStatus: 400, attempts: 1, reason: 'bad-request' });
    expect(err.message).toBe('provider_a refused the request (HTTP 400)');
    expect(reported).toEqual([{ provider: 'provider_a', upstreamStatus: 400, attempts: 1, reason: 'bad-request', upstreamText: 'Input is too long' }]);
    expect(vendor.requests).toHaveLength(1);
  });

  test('401 and 403 say the credential was rejected, are not retried and never echo the key', async () => {
    for (const status of [401, 403]) {
      vendor.reset(() => ({ status, body: JSON.stringify({ error: { message: 'Incorrect API key provided: sk-secret-key-123' } }) }));
      const err = await failureOf(providerA(vendor).synthesize(REQ));
      expect(err.code).toBe('PROVIDER_A_GENERATION_ERROR');
      expect(err.details).toMatchObject({ upstreamStatus: status, attempts: 1, reason: 'credentials-rejected' });
      expect(err.message).toMatch(/rejected the credential/);
      expect(err.message).toContain('PROVIDER_A_API_KEY');
      expect(JSON.stringify({ m: err.message, d: err.details })).not.toContain('sk-secret-key-123');
      expect(vendor.requests).toHaveLength(1);
    }
  });

  test('a vendor message quoting the key reaches only the log, redacted', async () => {
    vendor.reset(() => ({ status: 422, body: 'bad voice for key sk-secret-key-123' }));
    reported.length = 0;
    const err = await failureOf(providerA(vendor).synthesize(REQ));
    expect(err.details).toEqual({ upstreamStatus: 422, attempts: 1, reason: 'bad-request' });
    expect(err.message).not.toContain('bad voice');
    expect(reported[0].upstreamText).toBe('bad voice for key [redacted]');
  });

  test('500 is retried up to maxAttempts, then reported with the last status', async () => {
    vendor.reset(() => ({ status: 500, body: 'boom' }));
    const err = await failureOf(providerA(vendor).synthesize(REQ));
    expect(err.code).toBe('PROVIDER_A_GENERATION_ERROR');
    expect(err.details).toMatchObject({ upstreamStatus: 500, attempts: 3, reason: 'upstream-error' });
    expect(vendor.requests).toHaveLength(3);
  });

  test('a transient 503 followed by success succeeds', async () => {
    vendor.reset(async (_req, n) => (n === 1 ? { status: 503 } : audioReply('mp3')));
    const audio = await providerA(vendor).synthesize(REQ);
    expect(probe(audio, 'mp3').ok).toBe(true);
    expect(vendor.requests).toHaveLength(2);
  });

  test('429 waits for Retry-After before the retry', async () => {
    const callTimes: number[] = [];
    vendor.reset(async (_req, n) => {
      callTimes.push(Date.now());
      return n === 1 ? { status: 429, headers: { 'retry-after': '1' }, body: '{"error":{"message":"slow down"}}' } : audioReply('mp3');
    });
    const audio = await providerA(vendor).synthesize(REQ);
    expect(probe(audio, 'mp3').ok).toBe(true);
    expect(vendor.requests).toHaveLength(2);
    expect(callTimes[1] - callTimes[0]).toBeGreaterThanOrEqual(950);
  });

  test('429 that keeps coming is reported as rate-limited after every attempt', async () => {
    vendor.reset(() => ({ status: 429, headers: { 'retry-after': '0' } }));
    const err = await failureOf(providerA(vendor).synthesize(REQ));
    expect(err.details).toMatchObject({ upstreamStatus: 429, attempts: 3, reason: 'rate-limited' });
    expect(vendor.requests).toHaveLength(3);
  });

  test('a Retry-After beyond the cap fails at once instead of retrying too early', async () => {
    vendor.reset(() => ({ status: 429, headers: { 'retry-after': '120' } }));
    const started = Date.now();
    const err = await failureOf(providerA(vendor).synthesize(REQ));
    // Waiting would take 120 s; the bound only has to tell "at once" from that, on a busy machine too.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(err.details).toMatchObject({ upstreamStatus: 429, attempts: 1, reason: 'rate-limited', retryAfterSeconds: 120 });
    expect(vendor.requests).toHaveLength(1);
  });

  test('a vendor slower than the timeout is abandoned and retried', async () => {
    vendor.reset(async () => ({ ...(await audioReply('mp3')), delayMs: 1500 }));
    const started = Date.now();
    const err = await failureOf(providerA(vendor, { timeoutMs: 200, maxAttempts: 2 }).synthesize(REQ));
    expect(err.details).toMatchObject({ upstreamStatus: null, attempts: 2, reason: 'timeout' });
    expect(err.message).toContain('200 ms');
    expect(vendor.requests).toHaveLength(2);
    // Waiting the vendor out would take 2 × 1.5 s; abandoning it takes 2 × 0.2 s plus whatever a busy
    // machine adds. The bound tells the two apart without assuming an idle machine.
    expect(Date.now() - started).toBeLessThan(2_900);
  });

  test('truncated audio is never returned', async () => {
    const mp3 = await sampleAudio('mp3');
    vendor.reset(() => ({ status: 200, body: mp3.subarray(0, Math.floor(mp3.length / 2) + 7) }));
    const err = await failureOf(providerA(vendor).synthesize(REQ));
    expect(err.details).toMatchObject({ upstreamStatus: 200, attempts: 3, reason: 'invalid-audio' });
    expect(String(err.details!.audioProblem)).toMatch(/mp3/);

    const wav = await sampleAudio('wav');
    vendor.reset(() => ({ status: 200, body: wav.subarray(0, wav.length - 100) }));
    const wavErr = await failureOf(providerA(vendor).synthesize({ ...REQ, format: 'wav' }));
    expect(wavErr.details).toMatchObject({ upstreamStatus: 200, reason: 'invalid-audio' });
    expect(String(wavErr.details!.audioProblem)).toMatch(/truncated/);
  });

  test('an empty body or the wrong container is an error', async () => {
    vendor.reset(() => ({ status: 200, body: '' }));
    expect((await failureOf(providerA(vendor, { maxAttempts: 1 }).synthesize(REQ))).details).toMatchObject({ reason: 'invalid-audio', upstreamStatus: 200 });
    const mp3 = await sampleAudio('mp3');
    vendor.reset(() => ({ status: 200, body: mp3 }));
    const err = await failureOf(providerA(vendor, { maxAttempts: 1 }).synthesize({ ...REQ, format: 'wav' }));
    expect(err.details).toMatchObject({ reason: 'invalid-audio', upstreamStatus: 200 });
  });

  test('an unreachable vendor is a network failure', async () => {
    const gone = await startFakeVendor(() => ({ status: 200 }));
    const url = gone.url;
    await gone.close();
    const p = new ProviderA({ apiKey: 'k', baseUrl: url, resilience: resolveResilience(FAST) });
    const err = await failureOf(p.synthesize(REQ));
    expect(err.code).toBe('PROVIDER_A_GENERATION_ERROR');
    expect(err.details).toMatchObject({ upstreamStatus: null, attempts: 3, reason: 'network', networkError: 'ECONNREFUSED' });
  });

  test('a redirect is not followed (it would carry the credential elsewhere)', async () => {
    vendor.reset(() => ({ status: 307, headers: { location: 'http://127.0.0.1:1/elsewhere' } }));
    const err = await failureOf(providerA(vendor).synthesize(REQ));
    expect(err.details).toMatchObject({ upstreamStatus: 307, attempts: 1, reason: 'upstream-error' });
    expect(vendor.requests).toHaveLength(1);
  });

  test('cancelling the caller signal stops the call and retries', async () => {
    const abort = new AbortController();
    // Cancel once the vendor holds the request: a fixed delay from the start raced a loaded machine,
    // and the late request then landed in the next test's count.
    vendor.reset(async () => {
      setTimeout(() => abort.abort(), 20);
      return { ...(await audioReply('mp3')), delayMs: 1000 };
    });
    const err = await failureOf(providerA(vendor, { timeoutMs: 5000 }).synthesize(REQ, abort.signal));
    expect(err.details).toMatchObject({ reason: 'aborted', attempts: 1 });
    expect(vendor.requests).toHaveLength(1);
  });

  test('the circuit opens after N failures, stops calling upstream, then recovers after the cool-down', async () => {
    const provider = providerA(vendor, { failureThreshold: 3, maxAttempts: 1, cooldownMs: 300 });
    vendor.reset(() => ({ status: 500 }));
    for (let i = 0; i < 3; i++) expect((await failureOf(provider.synthesize(REQ))).details).toMatchObject({ upstreamStatus: 500 });
    expect(provider.client.breaker.state).toBe('open');

    for (let i = 0; i < 4; i++) {
      const err = await failureOf(provider.synthesize(REQ));
      expect(err.code).toBe('PROVIDER_A_GENERATION_ERROR');
      expect(err.details).toMatchObject({ reason: 'circuit-open', attempts: 0, upstreamStatus: null });
      expect(err.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    }
    expect(vendor.requests).toHaveLength(3); // nothing reached the vendor while open

    await new Promise((r) => setTimeout(r, 320));
    // Half-open: one trial goes through; it fails, so the circuit opens again.
    expect((await failureOf(provider.synthesize(REQ))).details).toMatchObject({ upstreamStatus: 500, attempts: 1 });
    expect((await failureOf(provider.synthesize(REQ))).details).toMatchObject({ reason: 'circuit-open' });
    expect(vendor.requests).toHaveLength(4);

    await new Promise((r) => setTimeout(r, 320));
    vendor.respond = async () => ({ ...(await audioReply('mp3')), delayMs: 100 });
    // Concurrent callers in half-open: exactly one trial reaches the vendor, the rest are turned away.
    const results = await Promise.allSettled([provider.synthesize(REQ), provider.synthesize(REQ), provider.synthesize(REQ)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as DomainError).details).toMatchObject({ reason: 'circuit-open' });
    expect(vendor.requests).toHaveLength(5);
    expect(provider.client.breaker.state).toBe('closed');

    await provider.synthesize(REQ);
    expect(vendor.requests).toHaveLength(6);
  });

  test('retries stop once the circuit opens mid-call', async () => {
    const provider = providerA(vendor, { failureThreshold: 2, maxAttempts: 3 });
    vendor.reset(() => ({ status: 502 }));
    const err = await failureOf(provider.synthesize(REQ));
    expect(err.details).toMatchObject({ upstreamStatus: 502, attempts: 2, reason: 'upstream-error', circuit: 'open' });
    expect(vendor.requests).toHaveLength(2);
  });

  test('4xx answers do not count against the circuit', async () => {
    const provider = providerA(vendor, { failureThreshold: 2, maxAttempts: 1 });
    vendor.reset(() => ({ status: 400 }));
    for (let i = 0; i < 4; i++) await failureOf(provider.synthesize(REQ));
    expect(provider.client.breaker.state).toBe('closed');
    expect(vendor.requests).toHaveLength(4);
  });

  test('no more than maxConcurrency calls are in flight; the rest wait their turn', async () => {
    const provider = providerA(vendor, { maxConcurrency: 3 });
    vendor.reset(async () => ({ ...(await audioReply('mp3')), delayMs: 80 }));
    const results = await Promise.all(Array.from({ length: 10 }, () => provider.synthesize(REQ)));
    expect(results.every((r) => probe(r, 'mp3').ok)).toBe(true);
    expect(vendor.requests).toHaveLength(10);
    expect(vendor.maxInFlight).toBe(3);
    expect(provider.client.semaphore.inFlight).toBe(0);
  });
});
