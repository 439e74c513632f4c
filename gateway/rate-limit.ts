import { ipKeyGenerator, type ClientRateLimitInfo, type Store } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import type Redis from 'ioredis';
import type { Plan } from '../domain/auth/api-key.entity';
import type { Principal } from '../domain/auth/principal';
import {
  rateLimitError,
  type BudgetKind,
  type Caller,
  type OperationBudgets,
  type PlanRateCounter,
  type RateVerdict,
  type TtsRateCounter,
} from '../transport/budgets';
import { clock } from '../domain/clock';

/** Requests per hour of each compliance plan (spec: Limits); enterprise is unlimited. */
export const PLAN_LIMITS: Record<Plan, number> = { standard: 1000, premium: 10000, enterprise: Infinity };

/**
 * A fixed window of `windowMs` per client: in Redis when it is set (shared by every instance), else
 * in this process. Stores follow express-rate-limit's Store interface and are told their window the
 * way express-rate-limit tells them (`init`).
 */
function windowStore(redis: Redis | undefined, prefix: string, windowMs: number): Store {
  const store: Store = redis
    ? new RedisStore({ prefix, sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as never })
    : new WindowCounterStore();
  // Not awaited (as express-rate-limit does not): Redis answers the first count once it can.
  Promise.resolve(store.init?.({ windowMs } as never)).catch(() => undefined);
  return store;
}

const TTS_WINDOW_MS = 60_000;

/**
 * express-rate-limit's fixed window per client, in process, answering synchronously (its own
 * MemoryStore is async, which costs promises on every request the front charges).
 */
export class WindowCounterStore implements Store {
  readonly localKeys = true;
  private windowMs = TTS_WINDOW_MS;
  private readonly clients = new Map<string, { hits: number; resetTime: Date }>();
  private sweeper?: NodeJS.Timeout;

  init(options: { windowMs: number }) {
    this.windowMs = options.windowMs;
    clearInterval(this.sweeper);
    this.sweeper = setInterval(() => {
      const now = clock.nowMs();
      for (const [key, c] of this.clients) if (c.resetTime.getTime() <= now) this.clients.delete(key);
    }, this.windowMs);
    this.sweeper.unref();
  }

  get(key: string) {
    const c = this.live(key);
    return c ? { totalHits: c.hits, resetTime: c.resetTime } : undefined;
  }

  increment(key: string) {
    let c = this.live(key);
    if (!c) this.clients.set(key, (c = { hits: 0, resetTime: new Date(clock.nowMs() + this.windowMs) }));
    c.hits++;
    return { totalHits: c.hits, resetTime: c.resetTime };
  }

  decrement(key: string) {
    const c = this.live(key);
    if (c && c.hits > 0) c.hits--;
  }

  resetKey(key: string) {
    this.clients.delete(key);
  }

  resetAll() {
    this.clients.clear();
  }

  shutdown() {
    clearInterval(this.sweeper);
  }

  private live(key: string) {
    const c = this.clients.get(key);
    if (c && c.resetTime.getTime() <= clock.nowMs()) {
      this.clients.delete(key);
      return undefined;
    }
    return c;
  }
}

/**
 * A count as header text, the same digits as `String(n)` gives a non-negative integer. Not `String`:
 * V8 keeps the text of every number converted that way in a heap-wide cache until its slot is
 * reused, so a count that changes on every answer left each answer's text alive long enough to be
 * moved to the old generation (~40 KB per young collection under load, `--trace-gc-nvp`), garbage
 * only the full collector frees. Nor `JSON.stringify`, which writes the text without that cache but
 * costs ~900 CPU instructions a call (callgrind), more than the rest of the limiter. Here the text
 * is joined from the texts of its three-digit groups, made once: a join shorter than 13 characters
 * is a flat copy in V8, so up to nine digits it is one small string, like `String`'s.
 */
const GROUP_TEXT = Array.from({ length: 1000 }, (_, n) => JSON.stringify(n));
const PADDED_GROUP_TEXT = GROUP_TEXT.map((t) => t.padStart(3, '0'));
export function countText(n: number): string {
  if (!(n >= 0 && n < 1e9 && Number.isInteger(n))) return JSON.stringify(n);
  if (n < 1000) return GROUP_TEXT[n];
  if (n < 1e6) return GROUP_TEXT[Math.floor(n / 1000)] + PADDED_GROUP_TEXT[n % 1000];
  return GROUP_TEXT[Math.floor(n / 1e6)] + PADDED_GROUP_TEXT[Math.floor(n / 1000) % 1000] + PADDED_GROUP_TEXT[n % 1000];
}

/** Whole seconds until a window resets, at least 1 (an unknown reset: 1). */
function secondsUntil(resetTime: Date | undefined, now = clock.nowMs()): number {
  return Math.max(1, Math.ceil(((resetTime?.getTime() ?? now + 1000) - now) / 1000));
}

const PLAN_WINDOW_MS = 3_600_000;
/** A key spends the hourly budget of the root of its lineage, shared with every key descended from it (domain/auth). */
const budgetPlanOf = (principal: Principal | null | undefined) => principal?.budget?.plan ?? principal?.plan;
const planExempt = (principal: Principal | null | undefined) => budgetPlanOf(principal) === 'enterprise' || !!principal?.isAdmin;
const planLimitOf = (principal: Principal | null | undefined) => {
  const n = PLAN_LIMITS[budgetPlanOf(principal) ?? 'standard'];
  return Number.isFinite(n) ? n : 0;
};
const planKeyOf = (principal: Principal | null | undefined, ip: string | undefined) =>
  principal ? `key:${principal.budget?.keyId ?? principal.keyId}` : `ip:${ipKeyGenerator(ip ?? 'unknown')}`;

export function createLimiters(opts: { ttsPerMinute: number; redis?: Redis }): {
  ttsCounter: TtsRateCounter;
  planCounter: PlanRateCounter;
  budgets: OperationBudgets;
} {
  const ttsStore = windowStore(opts.redis, 'rl:tts:', TTS_WINDOW_MS);
  const planStore = windowStore(opts.redis, 'rl:plan:', PLAN_WINDOW_MS);
  // IPv6 addresses are keyed by their /56 (parsed by a library); a client's key is worked out once.
  const keys = new Map<string, string>();
  const ttsKey = (ip: string | undefined) => {
    const address = ip ?? 'unknown';
    let key = keys.get(address);
    if (key === undefined) {
      if (keys.size >= 10_000) keys.clear();
      keys.set(address, (key = ipKeyGenerator(address)));
    }
    return key;
  };
  const limit = opts.ttsPerMinute;
  const policy = `${limit};w=${Math.ceil(TTS_WINDOW_MS / 1000)}`;
  const limitText = String(limit);
  // The same figures and rounding as express-rate-limit's draft-6 headers.
  const verdict = ({ totalHits, resetTime }: ClientRateLimitInfo): RateVerdict => {
    const now = clock.nowMs();
    const resetSeconds = resetTime ? Math.max(0, Math.ceil((resetTime.getTime() - now) / 1000)) : Math.ceil(TTS_WINDOW_MS / 1000);
    return {
      exceeded: totalHits > limit,
      retryAfterSeconds: secondsUntil(resetTime, now),
      headers: [
        'RateLimit-Policy',
        policy,
        'RateLimit-Limit',
        limitText,
        'RateLimit-Remaining',
        countText(Math.max(limit - totalHits, 0)),
        'RateLimit-Reset',
        countText(resetSeconds),
      ],
    };
  };
  const ttsCounter: TtsRateCounter = {
    hit(ip) {
      const counted = ttsStore.increment(ttsKey(ip));
      return counted instanceof Promise ? counted.then(verdict) : verdict(counted);
    },
  };
  // The same figures as express-rate-limit's legacy headers (its `Date` header aside: node sets one).
  const notLimited: RateVerdict = { exceeded: false, retryAfterSeconds: 0, headers: [] };
  const planVerdict = (limit: number, { totalHits, resetTime }: ClientRateLimitInfo): RateVerdict => {
    const headers = ['X-RateLimit-Limit', countText(limit), 'X-RateLimit-Remaining', countText(Math.max(limit - totalHits, 0))];
    if (resetTime instanceof Date) headers.push('X-RateLimit-Reset', String(Math.ceil(resetTime.getTime() / 1000)));
    return { exceeded: totalHits > limit, retryAfterSeconds: secondsUntil(resetTime), headers };
  };
  const planCounter: PlanRateCounter = {
    hit({ principal, ip }) {
      if (planExempt(principal)) return notLimited;
      const limit = planLimitOf(principal);
      const counted = planStore.increment(planKeyOf(principal, ip));
      return counted instanceof Promise ? counted.then((c) => planVerdict(limit, c)) : planVerdict(limit, counted);
    },
  };
  /** The store, key and limit a `kind` counts a caller on (null: not limited). */
  const counting = (kind: BudgetKind, caller: Caller) =>
    kind === 'tts'
      ? { store: ttsStore, key: ttsKey(caller.ip), limit }
      : planExempt(caller.principal)
        ? null
        : { store: planStore, key: planKeyOf(caller.principal, caller.ip), limit: planLimitOf(caller.principal) };
  type Counting = NonNullable<ReturnType<typeof counting>>;
  const takeBack = async (c: Counting, units: number) => {
    for (let i = 0; i < units; i++) await c.store.decrement(c.key);
  };
  const budgets: OperationBudgets = {
    async charge(kind, caller, units = 1) {
      const c = units > 0 ? counting(kind, caller) : null;
      if (!c) return;
      for (let i = 0; i < units; i++) {
        const { totalHits, resetTime } = await c.store.increment(c.key);
        if (totalHits > c.limit) throw rateLimitError(secondsUntil(resetTime));
      }
    },
    async tryCharge(kind, caller, units) {
      const c = units > 0 ? counting(kind, caller) : null;
      if (!c) return true;
      for (let i = 0; i < units; i++) {
        const { totalHits } = await c.store.increment(c.key);
        if (totalHits > c.limit) {
          await takeBack(c, i + 1);
          return false;
        }
      }
      return true;
    },
    async refund(kind, caller, units) {
      const c = units > 0 ? counting(kind, caller) : null;
      if (c) await takeBack(c, units);
    },
  };
  return { ttsCounter, planCounter, budgets };
}
