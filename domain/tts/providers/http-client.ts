import { DomainError, type ErrorCode } from '../../errors';
import type { Dispatcher } from 'undici';
import { secretRedactor, type Redactor } from '../../util/redact';
import { guardedDispatcher, type UrlPolicy } from '../../webhooks/ssrf';
import type { ProviderId } from '../catalogue';
import { abortableSleep, backoffDelayMs, CircuitBreaker, parseRetryAfter, Semaphore, type ResilienceOptions } from './resilience';
import { networkCause, readLimited, readPreview, ResponseTooLargeError } from './upstream-body';
import { UpstreamAudioStream, type StreamSink } from './upstream-stream';

export { UpstreamAudioStream } from './upstream-stream';

/** The three external vendors (mock never goes over HTTP). */
export type VendorId = Exclude<ProviderId, 'mock'>;

export const GENERATION_ERROR_CODE: Record<VendorId, ErrorCode> = {
  provider_a: 'PROVIDER_A_GENERATION_ERROR',
  provider_b: 'PROVIDER_B_GENERATION_ERROR',
  provider_c: 'PROVIDER_C_GENERATION_ERROR',
};

/** `details.reason` of a provider generation error. */
export type UpstreamFailureReason =
  | 'bad-request'
  | 'credentials-rejected'
  | 'rate-limited'
  | 'upstream-error'
  | 'timeout'
  | 'network'
  | 'invalid-audio'
  | 'response-too-large'
  | 'circuit-open'
  | 'aborted';

/** Thrown by an adapter's `accept` when a 2xx body is not usable audio; the attempt counts as failed. */
export class UnusableAudioError extends Error {
  override readonly name = 'UnusableAudioError';
}

export interface UpstreamClientOptions {
  provider: VendorId;
  /** Scheme, host and optional path prefix; request paths are appended. */
  baseUrl: string;
  /** Named in the message when the vendor rejects the credential. */
  credentialVariable: string;
  /** Redacted, in every encoding, from the vendor text that goes to the log (clients never get it). */
  secrets: string[];
  /**
   * Told of every failed call with the vendor's own text (secrets already redacted), for the log.
   * Clients get only the code, status and reason: vendor text may quote keys in any form.
   */
  onFailure?: (failure: UpstreamFailureRecord) => void;
  resilience: ResilienceOptions;
  userAgent?: string;
  random?: () => number;
  now?: () => number;
}

/** What a provider adapter passes on to its client about logging failures. */
export interface UpstreamReporting {
  /** Further configured secrets to redact (every vendor's key, the admin key…), beside the vendor's own. */
  secrets?: string[];
  onFailure?: (failure: UpstreamFailureRecord) => void;
  /** Which addresses a vendor host name may resolve to when connecting (private networks only when allowed). */
  policy?: UrlPolicy;
}

export interface AudioRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Validates (and may repair) a 2xx body. Throw UnusableAudioError to fail the attempt. */
  accept: (body: Buffer) => Buffer;
  /**
   * For streamed bodies: checks the first HEAD_CHECK_BYTES (or the whole body when shorter) before
   * any byte is handed on. Throw UnusableAudioError to fail the attempt while it can still be retried.
   */
  acceptHead?: (head: Buffer) => void;
}

/** Bytes of a streamed body checked (acceptHead) before any of it is handed on: enough for every container's signature. */
export const HEAD_CHECK_BYTES = 16;

type AttemptOutcome =
  | { ok: true; audio: Buffer }
  | {
      ok: false;
      reason: UpstreamFailureReason;
      status: number | null;
      retryable: boolean;
      /** Whether the failure says the vendor is unhealthy (feeds the circuit breaker). */
      unhealthy: boolean;
      retryAfterMs?: number;
      upstreamMessage?: string;
      cause?: string;
    };
type AttemptFailure = Extract<AttemptOutcome, { ok: false }>;

/** What the log gets of a failed vendor call. */
export interface UpstreamFailureRecord {
  provider: VendorId;
  upstreamStatus: number | null;
  reason: UpstreamFailureReason;
  attempts: number;
  /** The vendor's error text (or the local cause), every configured secret redacted. */
  upstreamText?: string;
}

const UPSTREAM_MESSAGE_CHARS = 300;

/**
 * POSTs to one vendor with a per-attempt timeout, retries (exponential backoff with full jitter,
 * Retry-After honoured up to a cap) on 408/429/5xx, network errors, timeouts and unusable audio,
 * behind a circuit breaker and a concurrency cap. Every failure becomes the vendor's
 * PROVIDER_X_GENERATION_ERROR with `details {upstreamStatus, attempts, reason}`.
 */
export class UpstreamClient {
  readonly breaker: CircuitBreaker;
  readonly semaphore: Semaphore;
  private readonly baseUrl: string;
  private readonly redact: Redactor;
  /** Connections to the vendor go through the SSRF guard's lookup (a rebound name cannot reach inside). */
  private readonly dispatcher: Dispatcher;

  constructor(private readonly opts: UpstreamClientOptions & { policy?: UrlPolicy }) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.dispatcher = guardedDispatcher(opts.policy ?? { allowPrivateNetworks: false });
    this.redact = secretRedactor(opts.secrets);
    this.breaker = new CircuitBreaker(opts.resilience, opts.now);
    this.semaphore = new Semaphore(opts.resilience.maxConcurrency);
  }

  /** The whole accepted body, after retries. */
  postForAudio(req: AudioRequest, signal?: AbortSignal): Promise<Buffer> {
    return this.call(req, signal);
  }

  /**
   * The body as it arrives, with the same retries, circuit breaker, concurrency cap, size limit and
   * checks as postForAudio; retries stop once the consumer has taken a byte (UpstreamAudioStream).
   */
  streamAudio(req: AudioRequest, signal?: AbortSignal): UpstreamAudioStream {
    return new UpstreamAudioStream((sink) => this.call(req, signal, sink));
  }

  private async call(req: AudioRequest, signal?: AbortSignal, sink?: StreamSink): Promise<Buffer> {
    const { maxAttempts, maxRetryAfterMs } = this.opts.resilience;
    let last: AttemptFailure | undefined;
    let attempts = 0;
    let gaveUpOnRetryAfter = false;

    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      if (this.breaker.rejecting) throw last ? this.failure(last, attempts, { circuit: 'open' }) : this.circuitOpen();
      let release: () => void;
      try {
        release = await this.semaphore.acquire(signal);
      } catch {
        throw this.aborted(attempts);
      }
      let outcome: AttemptOutcome;
      try {
        // Checked again: the circuit may have opened (or its trial been taken) while we queued.
        if (!this.breaker.tryPass()) throw last ? this.failure(last, attempts, { circuit: 'open' }) : this.circuitOpen();
        attempts++;
        outcome = await this.attempt(req, signal, sink);
        if (!outcome.ok && outcome.reason === 'aborted') this.breaker.onAbandon();
        else if (outcome.ok || !outcome.unhealthy) this.breaker.onSuccess();
        else this.breaker.onFailure();
      } finally {
        release();
      }
      if (outcome.ok) return outcome.audio;
      last = outcome;
      if (outcome.reason === 'aborted') throw this.aborted(attempts);
      // Bytes already handed on cannot be taken back: the stream ends with this failure.
      if (!outcome.retryable || attempt === maxAttempts || sink?.forwarded) break;
      sink?.discard();

      let delay = backoffDelayMs(attempt, this.opts.resilience, this.opts.random);
      if (outcome.retryAfterMs !== undefined) {
        // Retrying before the vendor's stated time would only earn another refusal.
        if (outcome.retryAfterMs > maxRetryAfterMs) {
          gaveUpOnRetryAfter = true;
          break;
        }
        delay = outcome.retryAfterMs;
      }
      try {
        await abortableSleep(delay, signal);
      } catch {
        throw this.aborted(attempts);
      }
    }
    throw this.failure(last!, attempts, gaveUpOnRetryAfter ? { retryAfterSeconds: Math.ceil(last!.retryAfterMs! / 1000) } : {});
  }

  private async attempt(req: AudioRequest, signal?: AbortSignal, sink?: StreamSink): Promise<AttemptOutcome> {
    const { timeoutMs, maxResponseBytes } = this.opts.resilience;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error('upstream timeout')), timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
    try {
      const res = await fetch(this.baseUrl + req.path, {
        method: 'POST',
        headers: { 'User-Agent': this.opts.userAgent ?? 'tts-gateway', ...req.headers },
        body: req.body,
        signal: combined,
        // A redirect would carry the credential header to wherever it points: refuse to follow.
        redirect: 'manual',
        dispatcher: this.dispatcher,
      } as RequestInit);
      if (res.status >= 200 && res.status < 300) {
        // Bytes of a streamed body not handed on yet: the head until it passed its check, or a body too short to have one.
        let held: Buffer[] | null = [];
        const body = await readLimited(
          res,
          maxResponseBytes,
          sink &&
            ((part, soFar) => {
              if (!held) return sink.push(part);
              held.push(part);
              if (soFar < HEAD_CHECK_BYTES) return;
              req.acceptHead?.(Buffer.concat(held));
              held.forEach((p) => sink.push(p));
              held = null;
            }),
        );
        try {
          if (sink && held) req.acceptHead?.(body);
          const audio = req.accept(body);
          if (sink && held) for (const p of held) sink.push(p);
          return { ok: true, audio };
        } catch (err) {
          const cause = err instanceof Error ? err.message : String(err);
          // Unusable audio is most often a transfer cut short: worth another attempt. Anything else
          // thrown while accepting is a local fault that a retry would only repeat.
          return {
            ok: false,
            reason: 'invalid-audio',
            status: res.status,
            retryable: err instanceof UnusableAudioError,
            unhealthy: err instanceof UnusableAudioError,
            cause,
          };
        }
      }
      const preview = await readPreview(res);
      return this.classifyStatus(res, preview);
    } catch (err) {
      if (signal?.aborted) return { ok: false, reason: 'aborted', status: null, retryable: false, unhealthy: false };
      if (timeout.signal.aborted) return { ok: false, reason: 'timeout', status: null, retryable: true, unhealthy: true };
      if (err instanceof UnusableAudioError) {
        // A streamed body whose start is not audio: nothing of it was handed on, so it may be retried.
        return { ok: false, reason: 'invalid-audio', status: 200, retryable: true, unhealthy: true, cause: err.message };
      }
      if (err instanceof ResponseTooLargeError) {
        return { ok: false, reason: 'response-too-large', status: null, retryable: false, unhealthy: true, cause: err.message };
      }
      return { ok: false, reason: 'network', status: null, retryable: true, unhealthy: true, cause: networkCause(err) };
    } finally {
      clearTimeout(timer);
    }
  }

  private classifyStatus(res: Response, preview: string): AttemptFailure {
    const status = res.status;
    const upstreamMessage = this.upstreamMessage(preview);
    if (status === 401 || status === 403) {
      // Vendors quote (parts of) the rejected key in these messages: only the redacted log sees them.
      return { ok: false, reason: 'credentials-rejected', status, retryable: false, unhealthy: false, upstreamMessage };
    }
    const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), (this.opts.now ?? Date.now)());
    if (status === 429) return { ok: false, reason: 'rate-limited', status, retryable: true, unhealthy: true, retryAfterMs, upstreamMessage };
    if (status === 408) return { ok: false, reason: 'timeout', status, retryable: true, unhealthy: true, retryAfterMs, upstreamMessage };
    if (status >= 500) return { ok: false, reason: 'upstream-error', status, retryable: true, unhealthy: true, retryAfterMs, upstreamMessage };
    if (status >= 400) return { ok: false, reason: 'bad-request', status, retryable: false, unhealthy: false, upstreamMessage };
    return { ok: false, reason: 'upstream-error', status, retryable: false, unhealthy: true, upstreamMessage: upstreamMessage ?? 'unexpected redirect' };
  }

  /** The vendor's own explanation, from the usual JSON error shapes or plain text, trimmed and redacted (for the log only). */
  private upstreamMessage(preview: string): string | undefined {
    let text = preview.trim();
    if (!text) return undefined;
    try {
      const json = JSON.parse(text);
      const candidate = json?.error?.message ?? json?.message ?? json?.error ?? json?.detail ?? json?.title;
      if (typeof candidate === 'string') text = candidate;
    } catch {
      // not JSON: keep the text
    }
    // Redacted before trimming, so a cut never leaves a fragment too short to be recognised.
    text = this.redact(text.replace(/\s+/g, ' '));
    return text.length > UPSTREAM_MESSAGE_CHARS ? `${text.slice(0, UPSTREAM_MESSAGE_CHARS)}…` : text;
  }

  /**
   * The client's error: code, upstream status, reason and attempts, in words of our own. The vendor's
   * text goes to the log only (onFailure), redacted: it may quote the key in any encoding.
   */
  private failure(last: AttemptFailure, attempts: number, extra: Record<string, unknown> = {}): DomainError {
    const p = this.opts.provider;
    const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
    const status = last.status === null ? '' : ` (HTTP ${last.status})`;
    // Local causes (a network error code, what is wrong with the audio) are our words, redacted all the same.
    const cause = last.cause ? this.redact(last.cause) : undefined;
    if (last.reason !== 'aborted') {
      const upstreamText = last.upstreamMessage ?? cause;
      try {
        this.opts.onFailure?.({ provider: p, upstreamStatus: last.status, reason: last.reason, attempts, ...(upstreamText ? { upstreamText } : {}) });
      } catch {
        /* logging never changes the answer */
      }
    }
    const messages: Record<UpstreamFailureReason, string> = {
      'credentials-rejected': `${p} rejected the credential${status}: check ${this.opts.credentialVariable}`,
      'bad-request': `${p} refused the request${status}`,
      'rate-limited': `${p} is rate limiting requests${status}; gave up after ${tries}`,
      'upstream-error': `${p} failed${status} after ${tries}`,
      timeout: last.status === null ? `${p} did not answer within ${this.opts.resilience.timeoutMs} ms (${tries})` : `${p} timed out${status} after ${tries}`,
      network: `${p} could not be reached${cause ? ` (${cause})` : ''} after ${tries}`,
      'invalid-audio': `${p} returned unusable audio after ${tries}: ${cause ?? 'unknown problem'}`,
      'response-too-large': `${p} returned more audio than accepted: ${cause ?? ''}`,
      'circuit-open': `${p} is temporarily unavailable`,
      aborted: `${p} call was cancelled`,
    };
    return new DomainError(GENERATION_ERROR_CODE[p], messages[last.reason], {
      provider: p,
      details: {
        upstreamStatus: last.status,
        attempts,
        reason: last.reason,
        ...(last.reason === 'invalid-audio' && cause ? { audioProblem: cause } : {}),
        ...(last.reason === 'network' && cause ? { networkError: cause } : {}),
        ...extra,
      },
    });
  }

  private circuitOpen(): DomainError {
    const p = this.opts.provider;
    const retryAfterSeconds = Math.max(1, Math.ceil(this.breaker.retryInMs / 1000));
    return new DomainError(GENERATION_ERROR_CODE[p], `${p} is temporarily unavailable after repeated upstream failures; retry in ${retryAfterSeconds} s`, {
      provider: p,
      details: { upstreamStatus: null, attempts: 0, reason: 'circuit-open', retryAfterSeconds },
      retryAfterSeconds,
    });
  }

  private aborted(attempts: number): DomainError {
    return this.failure({ ok: false, reason: 'aborted', status: null, retryable: false, unhealthy: false }, attempts);
  }
}
