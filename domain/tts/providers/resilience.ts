import { clock } from '../../clock';
/**
 * Building blocks that keep a slow or failing speech vendor from taking the gateway down with it:
 * retry timing (exponential backoff with full jitter, Retry-After), a circuit breaker and a
 * concurrency cap. One instance of each per provider; see http-client.ts for how they combine.
 */

export interface ResilienceOptions {
  /** Budget of one upstream attempt, body included. */
  timeoutMs: number;
  /** Attempts per call, the first one included. */
  maxAttempts: number;
  /** Backoff before retry n is uniform in [0, min(maxBackoffMs, baseBackoffMs * 2^(n-1))]. */
  baseBackoffMs: number;
  maxBackoffMs: number;
  /** Longest Retry-After we wait for; a vendor asking for more fails the call at once. */
  maxRetryAfterMs: number;
  /** Consecutive failed attempts that open the circuit. */
  failureThreshold: number;
  /** How long an open circuit rejects calls before letting one trial call through. */
  cooldownMs: number;
  /** Upstream calls in flight at once; further calls wait their turn. */
  maxConcurrency: number;
  /** Largest response body accepted (guards memory against a misbehaving upstream). */
  maxResponseBytes: number;
}

export const DEFAULT_RESILIENCE: Readonly<ResilienceOptions> = {
  timeoutMs: 15_000,
  maxAttempts: 3,
  baseBackoffMs: 250,
  maxBackoffMs: 4_000,
  maxRetryAfterMs: 10_000,
  failureThreshold: 5,
  cooldownMs: 30_000,
  maxConcurrency: 8,
  maxResponseBytes: 64 * 1024 * 1024,
};

export function resolveResilience(...layers: (Partial<ResilienceOptions> | undefined)[]): ResilienceOptions {
  const merged: ResilienceOptions = { ...DEFAULT_RESILIENCE };
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer ?? {})) {
      if (value !== undefined) (merged as unknown as Record<string, number>)[key] = value as number;
    }
  }
  for (const [key, value] of Object.entries(merged)) {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`resilience option ${key} must be a non-negative number`);
  }
  if (merged.maxAttempts < 1 || merged.maxConcurrency < 1 || merged.failureThreshold < 1) {
    throw new RangeError('maxAttempts, maxConcurrency and failureThreshold must be at least 1');
  }
  return merged;
}

/** Full jitter (AWS architecture blog): spreads retries of many clients evenly instead of in waves. */
export function backoffDelayMs(retryNumber: number, opts: Pick<ResilienceOptions, 'baseBackoffMs' | 'maxBackoffMs'>, random = Math.random): number {
  const ceiling = Math.min(opts.maxBackoffMs, opts.baseBackoffMs * 2 ** Math.max(0, retryNumber - 1));
  return Math.round(random() * ceiling);
}

/** Retry-After is either delta-seconds or an HTTP date; returns milliseconds from now, or undefined when absent/unreadable. */
export function parseRetryAfter(value: string | null | undefined, now = clock.nowMs()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export type CircuitState = 'closed' | 'open' | 'half-open';

/**
 * closed → open after `failureThreshold` consecutive failures; open → half-open once `cooldownMs`
 * has passed, where exactly one trial call goes through; its success closes the circuit, its
 * failure opens it for another cool-down.
 */
export class CircuitBreaker {
  private current: CircuitState = 'closed';
  private consecutiveFailures = 0;
  private openedAt = 0;
  private trialInFlight = false;

  constructor(
    private readonly opts: Pick<ResilienceOptions, 'failureThreshold' | 'cooldownMs'>,
    private readonly now: () => number = Date.now,
  ) {}

  get state(): CircuitState {
    if (this.current === 'open' && this.now() - this.openedAt >= this.opts.cooldownMs) return 'half-open';
    return this.current;
  }

  /** Milliseconds until an open circuit lets a trial call through (0 when it would now). */
  get retryInMs(): number {
    return this.current === 'open' ? Math.max(0, this.openedAt + this.opts.cooldownMs - this.now()) : 0;
  }

  /** True when a call would be turned away right now (does not claim the half-open trial). */
  get rejecting(): boolean {
    const state = this.state;
    return state === 'open' || (state === 'half-open' && this.trialInFlight);
  }

  /** Asks to make one upstream call. In half-open state only the first asker gets through. */
  tryPass(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.trialInFlight) return false;
    this.current = 'half-open';
    this.trialInFlight = true;
    return true;
  }

  onSuccess(): void {
    this.current = 'closed';
    this.consecutiveFailures = 0;
    this.trialInFlight = false;
  }

  onFailure(): void {
    if (this.current === 'half-open') {
      this.open();
      return;
    }
    this.consecutiveFailures++;
    if (this.current === 'closed' && this.consecutiveFailures >= this.opts.failureThreshold) this.open();
  }

  /** The call ended without a verdict on the upstream (e.g. the caller went away): free the trial slot. */
  onAbandon(): void {
    this.trialInFlight = false;
  }

  private open() {
    this.current = 'open';
    this.openedAt = this.now();
    this.trialInFlight = false;
  }
}

/** Counting semaphore with a FIFO queue; waiting can be cancelled through an AbortSignal. */
export class Semaphore {
  private active = 0;
  private readonly queue: { grant: () => void }[] = [];

  constructor(private readonly max: number) {}

  get inFlight() {
    return this.active;
  }

  get waiting() {
    return this.queue.length;
  }

  /** Resolves with a release function once a slot is free. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.active < this.max) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.active++;
          resolve(this.releaser());
        },
      };
      const onAbort = () => {
        const i = this.queue.indexOf(waiter);
        if (i >= 0) this.queue.splice(i, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.queue.shift()?.grant();
    };
  }
}
