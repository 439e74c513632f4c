import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit, type ClientRateLimitInfo, type Store } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import type Redis from 'ioredis';
import type { Plan } from '../domain/auth/api-key.entity';
import type { Principal } from '../domain/auth/principal';
import { rateLimitError, type BudgetKind, type Caller, type OperationBudgets, type PlanRateCounter, type RateVerdict, type TtsRateCounter } from '../transport/budgets';
import { errorBody, envelopeForPath } from '../rest-adapter/envelopes';
import { clock } from '../domain/clock';

/** Requests per hour of each compliance plan (spec: Limits); enterprise is unlimited. */
export const PLAN_LIMITS: Record<Plan, number> = { standard: 1000, premium: 10000, enterprise: Infinity };

function storeFor(redis: Redis | undefined, prefix: string): Store | undefined {
  if (!redis) return undefined; // express-rate-limit's in-process memory store
  return new RedisStore({
    prefix,
    sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as any,
  });
}

function limitExceeded(req: Request, res: Response, retryAfterSeconds: number) {
  res.set('Retry-After', String(retryAfterSeconds));
  res.status(429).json(errorBody(envelopeForPath(req.originalUrl), rateLimitError(retryAfterSeconds), req.id));
}

const TTS_WINDOW_MS = 60_000;

/**
 * express-rate-limit's fixed window per client, in process, answering synchronously (its own
 * MemoryStore is async, which costs promises on every request of the fast lane).
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

/** Whole seconds until a window resets, at least 1 (an unknown reset: 1). */
function secondsUntil(resetTime: Date | undefined, now = clock.nowMs()): number {
  return Math.max(1, Math.ceil(((resetTime?.getTime() ?? now + 1000) - now) / 1000));
}

function retryAfter(req: Request): number {
  return secondsUntil((req as any).rateLimit?.resetTime as Date | undefined);
}

const PLAN_WINDOW_MS = 3_600_000;
const planExempt = (principal: Principal | null | undefined) => principal?.plan === 'enterprise' || !!principal?.isAdmin;
const planLimitOf = (principal: Principal | null | undefined) => {
  const n = PLAN_LIMITS[principal?.plan ?? 'standard'];
  return Number.isFinite(n) ? n : 0;
};
const planKeyOf = (principal: Principal | null | undefined, ip: string | undefined) => (principal ? `key:${principal.keyId}` : `ip:${ipKeyGenerator(ip ?? 'unknown')}`);

export function createLimiters(opts: { ttsPerMinute: number; redis?: Redis }): {
  tts: RequestHandler;
  plan: RequestHandler;
  ttsCounter: TtsRateCounter;
  planCounter: PlanRateCounter;
  budgets: OperationBudgets;
} {
  const ttsStore = storeFor(opts.redis, 'rl:tts:') ?? new WindowCounterStore();
  const planStore = storeFor(opts.redis, 'rl:plan:') ?? new WindowCounterStore();
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
  const tts = rateLimit({
    windowMs: TTS_WINDOW_MS,
    limit: opts.ttsPerMinute,
    standardHeaders: 'draft-6',
    legacyHeaders: false,
    keyGenerator: (req) => ttsKey(req.ip),
    handler: (req, res) => limitExceeded(req, res, retryAfter(req)),
    store: ttsStore,
    validate: false,
  });
  const plan = rateLimit({
    windowMs: PLAN_WINDOW_MS,
    limit: (req) => planLimitOf(req.principal),
    skip: (req) => planExempt(req.principal),
    standardHeaders: false,
    legacyHeaders: true,
    keyGenerator: (req) => planKeyOf(req.principal, req.ip),
    handler: (req, res) => limitExceeded(req, res, retryAfter(req)),
    store: planStore,
    validate: false,
  });
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
      headers: ['RateLimit-Policy', policy, 'RateLimit-Limit', limitText, 'RateLimit-Remaining', String(Math.max(limit - totalHits, 0)), 'RateLimit-Reset', String(resetSeconds)],
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
    const headers = ['X-RateLimit-Limit', String(limit), 'X-RateLimit-Remaining', String(Math.max(limit - totalHits, 0))];
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
    undo({ principal, ip }) {
      if (planExempt(principal)) return;
      return planStore.decrement(planKeyOf(principal, ip));
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
  return { tts, plan, ttsCounter, planCounter, budgets };
}
