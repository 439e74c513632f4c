import { DomainError, toDomainError, type ErrorCode, type FieldError, type Quota } from '../domain/errors';

export type TrpcCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_SUPPORTED'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'TOO_MANY_REQUESTS'
  | 'INTERNAL_SERVER_ERROR'
  | 'BAD_GATEWAY'
  | 'SERVICE_UNAVAILABLE'
  | 'GATEWAY_TIMEOUT';

/**
 * What each code of the domain's catalogue is on the wire: the HTTP status (REST, GraphQL
 * `extensions.status`, the status of an HTTP answer) and the tRPC code. One table for every transport,
 * so they can never disagree; a code added to the catalogue does not compile until it is here.
 */
const WIRE: Record<ErrorCode, { status: number; trpc: TrpcCode }> = {
  VALIDATION_ERROR: { status: 400, trpc: 'BAD_REQUEST' },
  AUTHENTICATION_ERROR: { status: 401, trpc: 'UNAUTHORIZED' },
  AUTHORIZATION_ERROR: { status: 403, trpc: 'FORBIDDEN' },
  NOT_FOUND: { status: 404, trpc: 'NOT_FOUND' },
  METHOD_NOT_ALLOWED: { status: 405, trpc: 'METHOD_NOT_SUPPORTED' },
  CONFLICT: { status: 409, trpc: 'CONFLICT' },
  GONE: { status: 410, trpc: 'NOT_FOUND' },
  PAYLOAD_TOO_LARGE: { status: 413, trpc: 'PAYLOAD_TOO_LARGE' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, trpc: 'BAD_REQUEST' },
  RANGE_NOT_SATISFIABLE: { status: 416, trpc: 'BAD_REQUEST' },
  RATE_LIMIT_EXCEEDED: { status: 429, trpc: 'TOO_MANY_REQUESTS' },
  INTERNAL_ERROR: { status: 500, trpc: 'INTERNAL_SERVER_ERROR' },
  SERVICE_UNAVAILABLE: { status: 503, trpc: 'SERVICE_UNAVAILABLE' },
  GRAPHQL_INPUT_TOO_DEEP: { status: 400, trpc: 'BAD_REQUEST' },
  WEBHOOK_LIMIT_EXCEEDED: { status: 409, trpc: 'CONFLICT' },
  INVALID_VOICE: { status: 400, trpc: 'BAD_REQUEST' },
  INVALID_SPEED: { status: 400, trpc: 'BAD_REQUEST' },
  INVALID_FORMAT: { status: 400, trpc: 'BAD_REQUEST' },
  INVALID_PROVIDER: { status: 400, trpc: 'BAD_REQUEST' },
  INVALID_LANGUAGE: { status: 400, trpc: 'BAD_REQUEST' },
  INVALID_OPTION: { status: 400, trpc: 'BAD_REQUEST' },
  TEXT_TOO_LONG: { status: 400, trpc: 'BAD_REQUEST' },
  PROVIDER_NOT_CONFIGURED: { status: 500, trpc: 'INTERNAL_SERVER_ERROR' },
  PROVIDER_A_GENERATION_ERROR: { status: 502, trpc: 'BAD_GATEWAY' },
  PROVIDER_B_GENERATION_ERROR: { status: 502, trpc: 'BAD_GATEWAY' },
  PROVIDER_C_GENERATION_ERROR: { status: 502, trpc: 'BAD_GATEWAY' },
  MOCK_GENERATION_ERROR: { status: 502, trpc: 'BAD_GATEWAY' },
  INVALID_FRAMEWORK: { status: 400, trpc: 'BAD_REQUEST' },
};

export const httpStatusOf = (code: ErrorCode): number => WIRE[code].status;
export const trpcCodeOf = (code: ErrorCode): TrpcCode => WIRE[code].trpc;

/**
 * Anything thrown, as a client may see it: a DomainError keeps its code, message and details; any
 * other failure (a bug, a driver error, which also carries a `code`) becomes INTERNAL_ERROR, or
 * SERVICE_UNAVAILABLE with Retry-After when the database cannot be reached. `unexpected` says that
 * the failure was not a DomainError: its cause belongs in the log, never in the answer.
 */
export class ClientError {
  readonly error: DomainError;
  readonly unexpected: boolean;

  constructor(readonly thrown: unknown) {
    this.error = toDomainError(thrown);
    this.unexpected = !(thrown instanceof DomainError);
  }

  get code(): ErrorCode {
    return this.error.code;
  }
  get message(): string {
    return this.error.message;
  }
  get status(): number {
    return WIRE[this.error.code].status;
  }
  get trpcCode(): TrpcCode {
    return WIRE[this.error.code].trpc;
  }
  /** Retry-After and the budget the request was refused by, as HTTP answers carry them. */
  get headers(): Record<string, string> | undefined {
    if (this.written === null) {
      const { retryAfterSeconds, quota } = this.error;
      this.written =
        retryAfterSeconds === undefined && !quota
          ? undefined
          : { ...(retryAfterSeconds !== undefined ? { 'Retry-After': String(retryAfterSeconds) } : {}), ...(quota ? quotaHeaders(quota) : {}) };
    }
    return this.written;
  }
  /** The headers, made once: a transport reads them to test and again to write them. */
  private written: Record<string, string> | undefined | null = null;
  get details(): Record<string, unknown> | undefined {
    return this.error.details;
  }
  get fields(): FieldError[] | undefined {
    return this.error.fields;
  }
  get provider(): string | undefined {
    return this.error.provider;
  }
  /** Seconds to wait before retrying, for clients that see no HTTP headers (graphql-ws, tRPC data). */
  get retryAfter(): number | undefined {
    return this.error.retryAfterSeconds;
  }
  /** A failure of the gateway (5xx): logged with its cause. */
  get serverSide(): boolean {
    return this.status >= 500;
  }
}

/** A budget as `RateLimit-<Unit>-*` headers, beside the request-count `RateLimit-*` ones (draft-6 names). */
export function quotaHeaders(q: Quota): Record<string, string> {
  const unit = q.unit[0].toUpperCase() + q.unit.slice(1);
  return {
    [`RateLimit-${unit}-Limit`]: String(q.limit),
    [`RateLimit-${unit}-Remaining`]: String(q.remaining),
    [`RateLimit-${unit}-Reset`]: String(q.resetSeconds),
  };
}

export function toClientError(thrown: unknown): ClientError {
  return thrown instanceof ClientError ? thrown : new ClientError(thrown);
}

/**
 * GraphQL's `extensions` of a client error (HTTP and graphql-ws alike): the catalogue code, the HTTP
 * status it maps to, when to retry, and the error's details.
 */
export function graphqlExtensionsOf(err: ClientError): Record<string, unknown> {
  const retryAfter = err.retryAfter;
  return {
    code: err.code,
    status: err.status,
    ...(retryAfter ? { retryAfter } : {}),
    ...(err.details ? { details: err.details } : {}),
    ...(err.fields ? { fields: err.fields } : {}),
    ...(err.provider ? { provider: err.provider } : {}),
  };
}

/** A failed progress stream's last event (SSE, GraphQL and tRPC subscriptions): the code and message a client may see. */
export function progressErrorEvent(thrown: unknown): { type: 'error'; message: string; code: ErrorCode } {
  const err = toClientError(thrown);
  return { type: 'error', message: err.message, code: err.code };
}

/** The answer to a request body that does not parse as JSON, on every transport that reads one. */
export const invalidJsonBody = () =>
  new DomainError('VALIDATION_ERROR', 'Request body is not valid JSON', { fields: [{ field: '(body)', message: 'malformed JSON' }] });

/** What express's body parsers report, as a client error: too large, not JSON, or whatever else was thrown. */
export function bodyParserFailure(thrown: unknown): unknown {
  const err = thrown as { type?: string; status?: number } | null | undefined;
  if (err?.type === 'entity.too.large') return new DomainError('PAYLOAD_TOO_LARGE');
  if (err?.type === 'entity.parse.failed' || err?.status === 400) return invalidJsonBody();
  return thrown;
}
