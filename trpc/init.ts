import { initTRPC, TRPCError } from '@trpc/server';
import { z } from 'zod';
import { DomainError } from '../domain/errors';
import { toClientError } from '../transport/client-error';
import { rejectUnstorableStrings } from '../domain/validation';
import type { DomainContext } from '../domain/context';
import type { Services } from '../domain/services';
import type { OperationBudgets } from '../transport/budgets';

export interface TrpcContext {
  domain: DomainContext;
  services: Services;
  /** Each call (a batch item too) is charged as one request: `tts.*` to the TTS limit, the rest to the plan. */
  budgets?: OperationBudgets;
  /**
   * The largest JSON answer of one HTTP request (`GRAPHQL_MAX_RESULT_BYTES`, as for GraphQL), counted
   * over every call of a batch: a call whose result would pass it answers 413 PAYLOAD_TOO_LARGE.
   */
  resultBudget?: { maxBytes: number; usedBytes: number };
}

/**
 * JSON texts of results already measured: calls sharing one computation share its object, and a
 * plain query's answer (gateway/start/trpc-plain-query.ts) sends the text measured here.
 */
const resultTexts = new WeakMap<object, string>();
export const jsonTextOf = (value: object): string => {
  let text = resultTexts.get(value);
  if (text === undefined) resultTexts.set(value, (text = JSON.stringify(value)));
  return text;
};
const jsonLength = (value: unknown): number => (value === null || typeof value !== 'object' ? JSON.stringify(value ?? null).length : jsonTextOf(value).length);

const t = initTRPC.context<TrpcContext>().create({
  /** The domain code rides along in `data`, so tRPC clients see the same codes as REST and GraphQL. */
  errorFormatter({ shape, error }) {
    const cause = error.cause instanceof DomainError ? error.cause : null;
    const internal = !cause && error.code === 'INTERNAL_SERVER_ERROR';
    return {
      ...shape,
      message: internal ? 'Internal server error' : shape.message,
      data: {
        code: shape.data.code,
        httpStatus: shape.data.httpStatus,
        domainCode: cause?.code ?? (error.code === 'BAD_REQUEST' ? 'VALIDATION_ERROR' : internal ? 'INTERNAL_ERROR' : error.code),
        details: cause?.details ?? null,
        fields: cause?.fields ?? null,
        provider: cause?.provider ?? null,
        requestId: undefined as string | undefined,
      },
    };
  },
});

/** Every procedure passes through here: thrown domain errors become tRPC errors with the catalogue's code. */
const mapDomainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const original = result.error.cause ?? result.error;
    if (result.error.code === 'INTERNAL_SERVER_ERROR') throw trpcErrorOf(original);
  }
  return result;
});

export const router = t.router;

/**
 * A procedure's input typed from the domain's own zod schema (`z.input` of it: what a client may
 * send) but validated by the domain, which parses with that same schema, so every transport reports
 * the same codes and no transport copies a field by hand.
 */
/**
 * Validates with `schema` at run time (its shape: strings, required fields) but types the input as
 * `T`: for a closed set the domain checks itself so that it answers its own code (INVALID_FRAMEWORK
 * with the supported values), while clients see the set.
 */
export const checkedAs = <T>(schema: z.ZodType) => schema as unknown as z.ZodType<T, T>;

export const inputOf = <S extends z.ZodType>(_schema: S) => z.custom<z.input<S>>(() => true);

/** Anything thrown, as a tRPC error with the catalogue's tRPC code; the DomainError rides along as the cause. */
function trpcErrorOf(thrown: unknown): TRPCError {
  const err = toClientError(thrown);
  return new TRPCError({ code: err.trpcCode, message: err.message, cause: err.error });
}

/** A subscription's event stream whose domain errors reach the client with the catalogue's tRPC code. */
export function trpcErrorsOf<T>(source: AsyncIterableIterator<T>): AsyncIterableIterator<T> {
  return {
    next: () =>
      source.next().catch((err) => {
        if (err instanceof DomainError) throw trpcErrorOf(err);
        throw err;
      }),
    return: () => source.return?.() ?? Promise.resolve({ value: undefined as never, done: true }),
    throw: (err) => source.throw?.(err) ?? Promise.reject(err),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
/** PostgreSQL text has no U+0000 and UTF-8 no lone surrogate: refuse them in any input up front (ids skip the domain's parseInput). */
const rejectUnstorableInput = t.middleware(async ({ getRawInput, next }) => {
  rejectUnstorableStrings(await getRawInput());
  return next();
});

/** tRPC had no result-size cap: a batch of 100 traceability matrices built a 58 MB answer (issue 37). */
const capResultSize = t.middleware(async ({ ctx, type, next }) => {
  const result = await next();
  const budget = ctx.resultBudget;
  if (!result.ok || !budget || type === 'subscription') return result;
  const bytes = jsonLength((result as { data?: unknown }).data);
  if (budget.usedBytes + bytes > budget.maxBytes) {
    throw trpcErrorOf(resultTooLargeError(budget.usedBytes + bytes, budget.maxBytes));
  }
  budget.usedBytes += bytes;
  return result;
});

function resultTooLargeError(bytes: number, maxBytes: number) {
  return new DomainError(
    'PAYLOAD_TOO_LARGE',
    `The answer would be ${bytes} bytes, over the ${maxBytes}-byte limit of one response (every call of a batch counts); ask for less per request`,
    {
      details: { bytes, maxBytes },
    },
  );
}

const chargeBudget = t.middleware(async ({ ctx, path, next }) => {
  await ctx.budgets?.charge(path.startsWith('tts.') ? 'tts' : 'plan', { ip: ctx.domain.ip, principal: ctx.domain.principal });
  return next();
});

export const procedure = t.procedure.use(mapDomainErrors).use(capResultSize).use(chargeBudget).use(rejectUnstorableInput);
