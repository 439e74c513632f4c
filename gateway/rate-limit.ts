import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit, type Store } from 'express-rate-limit';
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

function limitExceeded(req: Request, res: Response, retryAfterSeconds: number) {
  const err = new DomainError('RATE_LIMIT_EXCEEDED', `Too many requests; retry in ${retryAfterSeconds} s`, {
    details: { retryAfter: retryAfterSeconds },
  });
  res.set('Retry-After', String(retryAfterSeconds));
  res.status(429).json(errorBody(envelopeForPath(req.originalUrl), err, req.id));
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
export function createLimiters(opts: { ttsPerMinute: number; redis?: Redis }): { tts: RequestHandler; plan: RequestHandler } {
  const tts = rateLimit({
    windowMs: 60_000,
    limit: opts.ttsPerMinute,
    standardHeaders: 'draft-6',
    legacyHeaders: false,
    keyGenerator: (req) => ipKeyGenerator(req.ip ?? 'unknown'),
    handler: (req, res) => limitExceeded(req, res, retryAfter(req)),
    store: storeFor(opts.redis, 'rl:tts:'),
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
  return { tts, plan };
}
