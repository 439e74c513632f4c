import { clock } from '../clock';
import { DomainError } from '../errors';
import type { EventBus, Unsubscribe } from '../events/bus';
import type { Permission } from './permissions';
import { can, type Principal } from './principal';

/** Where revocations travel between instances (the Redis bus when REDIS_URL is set). */
export const PRINCIPAL_CHANNEL = 'auth.principals';
/** How often the expiry lease of every live connection is looked at. */
const LEASE_CHECK_MS = 1000;
/**
 * How often each live connection's key is read again from the database: the backstop for a
 * revocation event that never arrived (Redis down, no Redis with several instances). Below the
 * 5 s for which a request may be answered from the cache of keys.
 */
export const DEFAULT_RECHECK_MS = 2500;

/** What a transport is told when its caller may no longer use the channel. */
export type PrincipalLoss = DomainError & { code: 'AUTHENTICATION_ERROR' | 'AUTHORIZATION_ERROR' };

/** The validity of a key as the database has it now. */
export interface PrincipalSource {
  /** The principal of key `keyId` as it stands now, or why there is none. */
  current(keyId: string): Promise<Principal | 'revoked' | 'expired' | 'unknown'>;
}

interface Watch {
  principal: Principal;
  required: Permission | null;
  onLost: (loss: PrincipalLoss) => void;
}

const lost = (code: PrincipalLoss['code'], message: string, reason: string) => new DomainError(code, message, { details: { reason } }) as PrincipalLoss;
const REVOKED = () => lost('AUTHENTICATION_ERROR', 'The API key was revoked', 'revoked');
const EXPIRED = () => lost('AUTHENTICATION_ERROR', 'The API key has expired', 'expired');
const INVALID = () => lost('AUTHENTICATION_ERROR', 'The API key is no longer valid', 'invalid');
const FORBIDDEN = (p: Permission) => lost('AUTHORIZATION_ERROR', `This key lacks the '${p}' permission`, 'permission');

/**
 * The rule of live channels: a connection lasts only as long as its key is valid and holds the
 * permission the channel needs, exactly as a single request would be answered. Transports register each open socket,
 * subscription or stream with `watch` and close it when told; they decide nothing themselves.
 *
 * Three ways a key stops: a revocation here or on another instance (the event on
 * `PRINCIPAL_CHANNEL`, at once), the expiry of the key or of any issuer above it (a lease per
 * connection, checked every second against the domain clock), and anything else the database says
 * (re-read every `recheckMs`: revoked while the event was lost, permissions changed).
 */
export class PrincipalWatch {
  private readonly byKey = new Map<string, Set<Watch>>();
  private readonly unsubscribe: Unsubscribe;
  private leaseTimer?: NodeJS.Timeout;
  private recheckTimer?: NodeJS.Timeout;
  private rechecking = false;
  private readonly recheckMs: number;

  constructor(
    private readonly source: PrincipalSource,
    private readonly bus: EventBus,
    opts: { recheckMs?: number; onRevokedElsewhere?: (keyIds: string[]) => void; onError?: (err: unknown) => void } = {},
  ) {
    this.recheckMs = opts.recheckMs ?? DEFAULT_RECHECK_MS;
    this.onError = opts.onError;
    this.unsubscribe = bus.subscribe(PRINCIPAL_CHANNEL, (e) => {
      if (e.type !== 'api_key.revoked' || !Array.isArray(e.data?.keyIds)) return;
      const keyIds = (e.data.keyIds as unknown[]).filter((k): k is string => typeof k === 'string');
      opts.onRevokedElsewhere?.(keyIds);
      this.revoked(keyIds);
    });
  }

  private readonly onError?: (err: unknown) => void;

  /** Live connections being watched (for metrics and tests). */
  get size(): number {
    let n = 0;
    for (const set of this.byKey.values()) n += set.size;
    return n;
  }

  /**
   * Watches one connection of `principal` that needs `required` (null: any valid key). `onLost` is
   * called at most once; the returned function stops watching (call it when the connection ends).
   * Keys that cannot be revoked or expire (the configured ADMIN_API_KEY and API_KEY, anonymous
   * callers) are not watched.
   */
  watch(principal: Principal | null | undefined, required: Permission | null, onLost: (loss: PrincipalLoss) => void): Unsubscribe {
    if (!principal || !principal.revocable) return () => undefined;
    const watch: Watch = { principal, required, onLost };
    let set = this.byKey.get(principal.keyId);
    if (!set) this.byKey.set(principal.keyId, (set = new Set()));
    set.add(watch);
    this.startTimers();
    // Already past its lease (it expired between authentication and now): told at once, asynchronously.
    if (this.expired(principal)) queueMicrotask(() => this.lose(watch, EXPIRED()));
    return () => this.remove(watch);
  }

  /** Announces a revocation to every instance, and acts on it here at once (not waiting for the bus). */
  async announceRevoked(keyIds: string[]): Promise<void> {
    if (!keyIds.length) return;
    this.revoked(keyIds);
    await this.bus.publish(PRINCIPAL_CHANNEL, {
      id: `revoked-${keyIds[0]}-${clock.nowMs()}`,
      type: 'api_key.revoked',
      data: { keyIds },
      createdAt: clock.now().toISOString(),
    });
  }

  close() {
    this.unsubscribe();
    this.stopTimers();
    this.byKey.clear();
  }

  private revoked(keyIds: string[]) {
    for (const keyId of keyIds) {
      const set = this.byKey.get(keyId);
      if (set) for (const w of [...set]) this.lose(w, REVOKED());
    }
  }

  private expired(p: Principal): boolean {
    return p.validUntil !== undefined && p.validUntil <= clock.nowMs();
  }

  private lose(watch: Watch, loss: PrincipalLoss) {
    if (!this.remove(watch)) return;
    try {
      watch.onLost(loss);
    } catch (err) {
      this.onError?.(err);
    }
  }

  private remove(watch: Watch): boolean {
    const set = this.byKey.get(watch.principal.keyId);
    if (!set?.delete(watch)) return false;
    if (!set.size) this.byKey.delete(watch.principal.keyId);
    if (!this.byKey.size) this.stopTimers();
    return true;
  }

  private startTimers() {
    if (this.leaseTimer) return;
    this.leaseTimer = setInterval(() => this.checkLeases(), LEASE_CHECK_MS);
    this.leaseTimer.unref();
    this.recheckTimer = setInterval(() => void this.recheck(), this.recheckMs);
    this.recheckTimer.unref();
  }

  private stopTimers() {
    clearInterval(this.leaseTimer);
    clearInterval(this.recheckTimer);
    this.leaseTimer = this.recheckTimer = undefined;
  }

  private checkLeases() {
    for (const set of [...this.byKey.values()]) {
      for (const w of [...set]) if (this.expired(w.principal)) this.lose(w, EXPIRED());
    }
  }

  private async recheck() {
    if (this.rechecking) return;
    this.rechecking = true;
    try {
      for (const keyId of [...this.byKey.keys()]) {
        let now: Principal | 'revoked' | 'expired' | 'unknown';
        try {
          now = await this.source.current(keyId);
        } catch {
          // The database is unreachable: no verdict, so nothing is closed on that account (the
          // database guard reports the outage itself).
          continue;
        }
        const set = this.byKey.get(keyId);
        if (!set) continue;
        for (const w of [...set]) {
          if (now === 'revoked') this.lose(w, REVOKED());
          else if (now === 'expired') this.lose(w, EXPIRED());
          else if (now === 'unknown') this.lose(w, INVALID());
          else if (w.required && !can(now, w.required)) this.lose(w, FORBIDDEN(w.required));
          else if (now.validUntil !== w.principal.validUntil) w.principal = { ...w.principal, validUntil: now.validUntil };
        }
      }
    } finally {
      this.rechecking = false;
    }
  }
}

/**
 * An event stream that lasts only while its caller's key is valid: once the key is lost, the
 * source is ended and the next read rejects with the loss (AUTHENTICATION_ERROR or
 * AUTHORIZATION_ERROR); reads after that are done. Transports turn that rejection into their own
 * error-then-end.
 */
export function whileValid<T>(
  watcher: PrincipalWatch,
  principal: Principal | null | undefined,
  required: Permission | null,
  source: AsyncIterableIterator<T>,
): AsyncIterableIterator<T> {
  let loss: PrincipalLoss | null = null;
  let reported = false;
  let wake: ((r: IteratorResult<T>) => void) | null = null;
  let fail: ((err: unknown) => void) | null = null;
  const stop = watcher.watch(principal, required, (l) => {
    loss = l;
    void source.return?.();
    if (fail) {
      reported = true;
      const f = fail;
      wake = fail = null;
      f(l);
    }
  });
  const finish = () => {
    stop();
    return source.return?.() ?? Promise.resolve({ value: undefined as never, done: true as const });
  };
  return {
    next() {
      if (loss) {
        if (reported) return Promise.resolve({ value: undefined as never, done: true });
        reported = true;
        return Promise.reject(loss);
      }
      return new Promise<IteratorResult<T>>((resolve, reject) => {
        wake = resolve;
        fail = reject;
        source.next().then(
          (r) => {
            if (wake !== resolve) return; // the loss answered this read already
            wake = fail = null;
            if (r.done) stop();
            resolve(r);
          },
          (err) => {
            if (wake !== resolve) return;
            wake = fail = null;
            stop();
            reject(err);
          },
        );
      });
    },
    async return() {
      await finish();
      return { value: undefined as never, done: true };
    },
    async throw(err) {
      await finish();
      throw err;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/**
 * For streams that report errors in-band (progressive generation): events pass
 * through `emit` while the key is valid; once it is lost, one error event in the stream's own shape
 * is emitted, nothing after it, `signal` aborts the work behind the stream, and `lost` resolves so
 * the transport ends the stream.
 */
export function progressWhileValid<E>(
  watcher: PrincipalWatch,
  principal: Principal | null | undefined,
  required: Permission | null,
  emit: (e: E) => void,
  errorEvent: (loss: PrincipalLoss) => E,
): { emit: (e: E) => void; lost: Promise<PrincipalLoss>; signal: AbortSignal; stop: () => void } {
  let ended = false;
  let resolveLost!: (l: PrincipalLoss) => void;
  const lost = new Promise<PrincipalLoss>((r) => (resolveLost = r));
  // Aborts the work behind the stream (the generation) once nobody may receive it any more.
  const controller = new AbortController();
  const stop = watcher.watch(principal, required, (loss) => {
    if (ended) return;
    emit(errorEvent(loss));
    ended = true;
    controller.abort(loss);
    resolveLost(loss);
  });
  return {
    emit: (e) => {
      if (!ended) emit(e);
    },
    lost,
    signal: controller.signal,
    stop,
  };
}

/**
 * The same promise, marked as handled: raced against `lost`, work that goes on after the stream has
 * ended must not surface as an unhandled rejection when it fails later.
 */
export function settledLater<T>(work: Promise<T>): Promise<T> {
  work.catch(() => undefined);
  return work;
}
