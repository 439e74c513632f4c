import { DomainError } from '../domain/errors';
import type { Principal } from '../domain/auth/principal';

/** 429 RATE_LIMIT_EXCEEDED with the seconds to wait, on every transport. */
export function rateLimitError(retryAfterSeconds: number) {
  return new DomainError('RATE_LIMIT_EXCEEDED', `Too many requests; retry in ${retryAfterSeconds} s`, {
    details: { retryAfter: retryAfterSeconds },
    retryAfterSeconds,
  });
}

export interface RateVerdict {
  exceeded: boolean;
  retryAfterSeconds: number;
  /** The draft-6 `RateLimit-*` headers as express-rate-limit sets them, as name/value pairs in a flat list. */
  headers: string[];
}

/**
 * The TTS limit as a counter, for REST's routes (charged by the request front): the same store and
 * key as `OperationBudgets.charge('tts')`, so a client's requests count once whichever transport
 * serves them. Synchronous with the in-process store, a promise with Redis.
 */
export interface TtsRateCounter {
  hit(ip: string | undefined): RateVerdict | Promise<RateVerdict>;
}

/**
 * The plan limit as a counter, for REST's routes (charged by the request front): the same store, key
 * and limit as `OperationBudgets.charge('plan')`. `headers` are the `X-RateLimit-*` headers (none for
 * a caller the plan does not limit, who is not counted). Synchronous with the in-process store, a
 * promise with Redis.
 */
export interface PlanRateCounter {
  hit(caller: Caller): RateVerdict | Promise<RateVerdict>;
}

/**
 * TTS: `API_RATE_LIMIT` requests a minute per client IP, with the `RateLimit-*` headers of the spec.
 * Compliance (and GraphQL/tRPC): the caller's plan per hour, keyed by API key (by IP when there
 * is none), with `X-RateLimit-*` headers and `Retry-After` on 429.
 */
export type BudgetKind = 'tts' | 'plan';

/** Who an operation is counted for: the key's plan when there is a key, else the address. */
export interface Caller {
  ip?: string;
  principal?: Principal | null;
}

/**
 * The same limiters as the REST middlewares, for one operation at a time: a tRPC batch item, a
 * GraphQL root field, a graphql-ws operation each count as one request, so batching or aliasing buys
 * nothing over separate REST calls.
 */
export interface OperationBudgets {
  /** Counts `units` requests against the `kind` limiter; throws 429 RATE_LIMIT_EXCEEDED (with Retry-After) when over. */
  charge(kind: BudgetKind, caller: Caller, units?: number): Promise<void>;
  /**
   * Counts like `charge`, but never refuses: when a count goes over the limit, every count this call
   * took is taken back and it answers false (the front's seam then hands the request to the
   * framework, which counts it and refuses it).
   */
  tryCharge(kind: BudgetKind, caller: Caller, units: number): Promise<boolean>;
  /** Takes back `units` counts a `tryCharge` took (an answer that was then not sent). */
  refund(kind: BudgetKind, caller: Caller, units: number): Promise<void>;
}
