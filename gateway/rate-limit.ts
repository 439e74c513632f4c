import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, MemoryStore, rateLimit, type Store } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import type Redis from 'ioredis';
import { DomainError } from '../domain/errors';
import type { Plan } from '../domain/auth/api-key.entity';
import { errorBody, envelopeForPath } from '../rest-adapter/envelopes';

/** Requests per hour of each compliance plan (spec: Limits); enterprise is unlimited. */
export const PLAN_LIMITS: Record<Plan, number> = { standard: 1000, premium: 10000, enterprise: Infinity };

function storeFor(redis: Redis | undefined, prefix: string): Store | undefined {
  if (!redis) return undefined; // express-rate-limit's in-process memory store
  return new RedisStore({
    prefix,
    sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as any,
  });
}

export function rateLimitError(retryAfterSeconds: number) {
  return new DomainError('RATE_LIMIT_EXCEEDED', `Too many requests; retry in ${retryAfterSeconds} s`, {
    details: { retryAfter: retryAfterSeconds },
  });
}

function limitExceeded(req: Request, res: Response, retryAfterSeconds: number) {
  res.set('Retry-After', String(retryAfterSeconds));
  res.status(429).json(errorBody(envelopeForPath(req.originalUrl), rateLimitError(retryAfterSeconds), req.id));
}

const TTS_WINDOW_MS = 60_000;

/**
 * The TTS limit as a counter, for callers outside express (the fast lane): the same store and key
 * as the `tts` middleware, so a client's requests count once whichever way they are served.
 */
export interface TtsRateCounter {
  /** Counts one request of `ip`; the `RateLimit-*` headers to send, and whether it is over the limit. */
  hit(ip: string | undefined): Promise<{ exceeded: boolean; retryAfterSeconds: number; headers: Record<string, string> }>;
}

function retryAfter(req: Request): number {
  const reset = (req as any).rateLimit?.resetTime as Date | undefined;
  return Math.max(1, Math.ceil(((reset?.getTime() ?? Date.now() + 1000) - Date.now()) / 1000));
}

/**
 * TTS: `API_RATE_LIMIT` requests a minute per client IP, with the `RateLimit-*` headers of the spec.
 * Compliance (and GraphQL/tRPC): the caller's plan per hour, keyed by API key (by IP when there
 * is none), with `X-RateLimit-*` headers and `Retry-After` on 429.
 */
export function createLimiters(opts: { ttsPerMinute: number; redis?: Redis }): { tts: RequestHandler; plan: RequestHandler; ttsCounter: TtsRateCounter } {
  const ttsStore = storeFor(opts.redis, 'rl:tts:') ?? new MemoryStore();
  const ttsKey = (ip: string | undefined) => ipKeyGenerator(ip ?? 'unknown');
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
    windowMs: 3_600_000,
    limit: (req) => {
      const p = req.principal?.plan ?? 'standard';
      const n = PLAN_LIMITS[p];
      return Number.isFinite(n) ? n : 0;
    },
    skip: (req) => req.principal?.plan === 'enterprise' || !!req.principal?.isAdmin,
    standardHeaders: false,
    legacyHeaders: true,
    keyGenerator: (req) => (req.principal ? `key:${req.principal.keyId}` : `ip:${ipKeyGenerator(req.ip ?? 'unknown')}`),
    handler: (req, res) => limitExceeded(req, res, retryAfter(req)),
    store: storeFor(opts.redis, 'rl:plan:'),
    validate: false,
  });
  const ttsCounter: TtsRateCounter = {
    async hit(ip) {
      const { totalHits, resetTime } = await ttsStore.increment(ttsKey(ip));
      const limit = opts.ttsPerMinute;
      const now = Date.now();
      // The same figures and rounding as express-rate-limit's draft-6 headers.
      const resetSeconds = resetTime ? Math.max(0, Math.ceil((resetTime.getTime() - now) / 1000)) : Math.ceil(TTS_WINDOW_MS / 1000);
      return {
        exceeded: totalHits > limit,
        retryAfterSeconds: Math.max(1, Math.ceil(((resetTime?.getTime() ?? now + 1000) - now) / 1000)),
        headers: {
          'RateLimit-Policy': `${limit};w=${Math.ceil(TTS_WINDOW_MS / 1000)}`,
          'RateLimit-Limit': String(limit),
          'RateLimit-Remaining': String(Math.max(limit - totalHits, 0)),
          'RateLimit-Reset': String(resetSeconds),
        },
      };
    },
  };
  return { tts, plan, ttsCounter };
}
