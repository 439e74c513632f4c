import { databaseKnownDown } from './database/guard';
/**
 * The one error catalogue. Every failure a client can see is a DomainError with a code from this
 * table; each transport derives its own shape from the entry (REST status + envelope, GraphQL
 * `extensions.code`, tRPC code) so the three can never disagree.
 */
export type TrpcCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'TOO_MANY_REQUESTS'
  | 'INTERNAL_SERVER_ERROR'
  | 'BAD_GATEWAY'
  | 'SERVICE_UNAVAILABLE'
  | 'GATEWAY_TIMEOUT';

interface CatalogueEntry {
  status: number;
  trpc: TrpcCode;
  /** Message used when the thrower gives none. */
  message: string;
}

export const ERROR_CATALOGUE = {
  // Shared
  VALIDATION_ERROR: { status: 400, trpc: 'BAD_REQUEST', message: 'Request validation failed' },
  AUTHENTICATION_ERROR: { status: 401, trpc: 'UNAUTHORIZED', message: 'Invalid or missing API key' },
  AUTHORIZATION_ERROR: { status: 403, trpc: 'FORBIDDEN', message: 'Insufficient permissions' },
  NOT_FOUND: { status: 404, trpc: 'NOT_FOUND', message: 'Resource not found' },
  CONFLICT: { status: 409, trpc: 'CONFLICT', message: 'The resource is in a conflicting state' },
  GONE: { status: 410, trpc: 'NOT_FOUND', message: 'The resource has expired' },
  PAYLOAD_TOO_LARGE: { status: 413, trpc: 'PAYLOAD_TOO_LARGE', message: 'Request body too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, trpc: 'BAD_REQUEST', message: 'Content-Type must be application/json' },
  RANGE_NOT_SATISFIABLE: { status: 416, trpc: 'BAD_REQUEST', message: 'Requested range not satisfiable' },
  RATE_LIMIT_EXCEEDED: { status: 429, trpc: 'TOO_MANY_REQUESTS', message: 'Too many requests' },
  INTERNAL_ERROR: { status: 500, trpc: 'INTERNAL_SERVER_ERROR', message: 'Internal server error' },
  SERVICE_UNAVAILABLE: { status: 503, trpc: 'SERVICE_UNAVAILABLE', message: 'Service temporarily unavailable' },
  // Text-to-speech
  INVALID_VOICE: { status: 400, trpc: 'BAD_REQUEST', message: 'Voice not supported by the provider' },
  INVALID_SPEED: { status: 400, trpc: 'BAD_REQUEST', message: 'Speed outside the valid range' },
  INVALID_FORMAT: { status: 400, trpc: 'BAD_REQUEST', message: 'Audio format not supported' },
  INVALID_PROVIDER: { status: 400, trpc: 'BAD_REQUEST', message: 'Unknown provider' },
  INVALID_LANGUAGE: { status: 400, trpc: 'BAD_REQUEST', message: 'Language not supported by the provider' },
  INVALID_OPTION: { status: 400, trpc: 'BAD_REQUEST', message: 'Option outside its valid range' },
  TEXT_TOO_LONG: { status: 400, trpc: 'BAD_REQUEST', message: 'Text exceeds the maximum length' },
  PROVIDER_NOT_CONFIGURED: { status: 500, trpc: 'INTERNAL_SERVER_ERROR', message: 'Provider not set up' },
  PROVIDER_A_GENERATION_ERROR: { status: 502, trpc: 'BAD_GATEWAY', message: 'Upstream error of provider_a' },
  PROVIDER_B_GENERATION_ERROR: { status: 502, trpc: 'BAD_GATEWAY', message: 'Upstream error of provider_b' },
  PROVIDER_C_GENERATION_ERROR: { status: 502, trpc: 'BAD_GATEWAY', message: 'Upstream error of provider_c' },
  MOCK_GENERATION_ERROR: { status: 502, trpc: 'BAD_GATEWAY', message: 'Generation failed in the mock provider' },
  // Compliance
  INVALID_FRAMEWORK: { status: 400, trpc: 'BAD_REQUEST', message: 'Framework not supported' },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface FieldError {
  field: string;
  message: string;
}

export interface DomainErrorOptions {
  /** Structured details (object form, as the TTS and dashboard envelopes carry). */
  details?: Record<string, unknown>;
  /** Per-field problems (list form, as the integration envelope carries). */
  fields?: FieldError[];
  /** TTS: the provider involved. */
  provider?: string;
  /** Extra response headers, e.g. Retry-After. */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  readonly fields?: FieldError[];
  readonly provider?: string;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message?: string, opts: DomainErrorOptions = {}) {
    super(message ?? ERROR_CATALOGUE[code].message, { cause: opts.cause });
    this.name = 'DomainError';
    this.code = code;
    this.details = opts.details;
    this.fields = opts.fields;
    this.provider = opts.provider;
    this.headers = opts.headers;
  }

  get status(): number {
    return ERROR_CATALOGUE[this.code].status;
  }

  get trpcCode(): TrpcCode {
    return ERROR_CATALOGUE[this.code].trpc;
  }
}

export const notFound = (what: string, id: string) =>
  new DomainError('NOT_FOUND', `${what} '${id}' not found`, { details: { resource: what, id } });

/**
 * Anything that is not a DomainError is a bug or an infrastructure fault: clients get a generic
 * message (never a stack or SQL), and a database that cannot be reached becomes a 503.
 */
export function toDomainError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  if (isDatabaseUnavailable(err)) {
    return new DomainError('SERVICE_UNAVAILABLE', 'The database is unavailable; retry shortly', {
      headers: { 'Retry-After': '2' },
      cause: err,
    });
  }
  if (isUnstorableInput(err)) {
    return new DomainError('VALIDATION_ERROR', 'A value in the request cannot be stored (invalid characters or too long)', { cause: err });
  }
  return new DomainError('INTERNAL_ERROR', undefined, { cause: err });
}

/** PostgreSQL data exceptions that only a client's value causes: invalid byte sequence / NUL, untranslatable character, value too long. */
const UNSTORABLE_INPUT_CODES = new Set(['22021', '22P05', '22001']);

function isUnstorableInput(err: unknown): boolean {
  for (let e: any = err, depth = 0; e && depth < 5; e = e.cause, depth++) {
    if (typeof e.code === 'string' && UNSTORABLE_INPUT_CODES.has(e.code)) return true;
  }
  return false;
}

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P03', '08006', '08001', '08003']);

export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: any = err, depth = 0; e && depth < 5; e = e.cause, depth++) {
    // A transaction the database guard cut short: its later statements fail with knex's own message.
    if (/Transaction query already complete/.test(String(e.message ?? '')) && databaseKnownDown()) return true;
    if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
    const msg = String(e.message ?? '');
    if (/Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout|Timeout acquiring a connection|Knex: Timeout|ECONNREFUSED|Client has encountered a connection error|Connection ended unexpectedly/i.test(msg)) return true;
    if (e.name === 'ConnectionException') return true;
  }
  return false;
}
