import { clock } from '../clock';
import { DomainError, type Quota } from '../errors';

/**
 * What a generation costs is its text: a request count alone lets one client ask for 100 × 100,000
 * characters a minute. Admission puts three bounds in front of every generation that is not a cache
 * hit, whatever the transport:
 *
 * - a characters-per-minute budget per client (API key, else address): over it, RATE_LIMIT_EXCEEDED with a retry time;
 * - at most `perClient` generations of one client run at once; more wait their turn (up to
 *   `perClientWaiting` more; beyond that, RATE_LIMIT_EXCEEDED): a flood slows its sender;
 * - at most `concurrent` generations run server-wide; the rest wait in one queue of `queue` places,
 *   served oldest first among clients under their own cap (so another client's request overtakes a
 *   flood); a full queue answers SERVICE_UNAVAILABLE with a retry time.
 *
 * State is per process (a generation runs in the process that admitted it).
 */
export interface AdmissionLimits {
  charsPerMinute: number;
  perClient: number;
  concurrent: number;
  queue: number;
}

/** A client's characters per minute: what is left and when the window starts afresh. */
export type CharacterBudget = Quota & { unit: 'characters' };

interface Waiter {
  client: string;
  admit(): void;
  reject(err: Error): void;
}

const WINDOW_MS = 60_000;

export class SpeechAdmission {
  private readonly windows = new Map<string, { used: number; resetAt: number }>();
  private readonly running = new Map<string, number>();
  private runningTotal = 0;
  private readonly waiting: Waiter[] = [];
  private readonly perClientWaiting: number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(readonly limits: AdmissionLimits) {
    this.perClientWaiting = Math.max(1, limits.perClient * 4);
    this.sweeper = setInterval(() => {
      const now = clock.nowMs();
      for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
    }, WINDOW_MS);
    this.sweeper.unref();
  }

  close() {
    clearInterval(this.sweeper);
    for (const w of this.waiting.splice(0))
      w.reject(new DomainError('SERVICE_UNAVAILABLE', 'The server is shutting down; retry the request', { retryAfterSeconds: 5 }));
  }

  /** The client's character budget as it stands (shown to clients beside their request counts). */
  budgetOf(client: string): CharacterBudget {
    const now = clock.nowMs();
    const w = this.windows.get(client);
    const live = w && w.resetAt > now ? w : undefined;
    return {
      unit: 'characters',
      limit: this.limits.charsPerMinute,
      remaining: Math.max(0, this.limits.charsPerMinute - (live?.used ?? 0)),
      resetSeconds: live ? Math.max(1, Math.ceil((live.resetAt - now) / 1000)) : Math.ceil(WINDOW_MS / 1000),
    };
  }

  /**
   * Charges `characters` to the client's budget and waits for a place to run; resolves to the
   * function that gives the place back (call it exactly once). Throws RATE_LIMIT_EXCEEDED or SERVICE_UNAVAILABLE instead of waiting
   * when the request cannot be served in time.
   */
  async admit(client: string, characters: number): Promise<() => void> {
    this.charge(client, characters);
    const mine = (this.running.get(client) ?? 0) + this.waitingOf(client);
    if (mine >= this.limits.perClient + this.perClientWaiting) {
      this.refund(client, characters);
      throw new DomainError(
        'RATE_LIMIT_EXCEEDED',
        `Too many generations at once for this client (at most ${this.limits.perClient} run, ${this.perClientWaiting} wait); retry when one has finished`,
        {
          details: { retryAfter: 5, concurrentGenerations: this.limits.perClient },
          retryAfterSeconds: 5,
        },
      );
    }
    if (this.canRun(client)) {
      this.start(client);
      return this.releaser(client);
    }
    if (this.waiting.length >= this.limits.queue) {
      this.refund(client, characters);
      throw new DomainError('SERVICE_UNAVAILABLE', 'The server is busy with other generations; retry shortly', {
        details: { retryAfter: 5, queued: this.waiting.length },
        retryAfterSeconds: 5,
      });
    }
    await new Promise<void>((admit, reject) => this.waiting.push({ client, admit, reject }));
    return this.releaser(client);
  }

  /** Charges characters without taking a place to run (a queued generation runs later, as a job). */
  charge(client: string, characters: number) {
    const now = clock.nowMs();
    let w = this.windows.get(client);
    if (!w || w.resetAt <= now) this.windows.set(client, (w = { used: 0, resetAt: now + WINDOW_MS }));
    if (w.used + characters > this.limits.charsPerMinute) {
      const seconds = Math.max(1, Math.ceil((w.resetAt - now) / 1000));
      const budget = this.budgetOf(client);
      throw new DomainError(
        'RATE_LIMIT_EXCEEDED',
        `Character budget exceeded: ${characters} requested, ${budget.remaining} of ${budget.limit} left this minute; retry in ${seconds} s`,
        {
          details: { retryAfter: seconds, characters, ...budget },
          retryAfterSeconds: seconds,
          quota: budget,
        },
      );
    }
    w.used += characters;
  }

  private refund(client: string, characters: number) {
    const w = this.windows.get(client);
    if (w) w.used = Math.max(0, w.used - characters);
  }

  private waitingOf(client: string) {
    let n = 0;
    for (const w of this.waiting) if (w.client === client) n++;
    return n;
  }

  private canRun(client: string) {
    return this.runningTotal < this.limits.concurrent && (this.running.get(client) ?? 0) < this.limits.perClient;
  }

  private start(client: string) {
    this.runningTotal++;
    this.running.set(client, (this.running.get(client) ?? 0) + 1);
  }

  private releaser(client: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.runningTotal--;
      const n = (this.running.get(client) ?? 1) - 1;
      if (n > 0) this.running.set(client, n);
      else this.running.delete(client);
      this.next();
    };
  }

  /** Oldest waiting request whose client is under its own cap. */
  private next() {
    for (let i = 0; i < this.waiting.length && this.runningTotal < this.limits.concurrent;) {
      const w = this.waiting[i];
      if (!this.canRun(w.client)) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.start(w.client);
      w.admit();
    }
  }
}
