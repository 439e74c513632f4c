import { databaseKnownDown } from './database/guard';
/**
 * The one error catalogue. Every failure a client can see is a DomainError with a code from this
 * table; how each code travels on the wire is the transports' business
 * (`transport/client-error.ts`), so the domain holds codes and default messages only.
 */
interface CatalogueEntry {
  /** Message used when the thrower gives none. */
  message: string;
}

export const ERROR_CATALOGUE = {
  // Shared
  VALIDATION_ERROR: { message: 'Request validation failed' },
  AUTHENTICATION_ERROR: { message: 'Invalid or missing API key' },
  AUTHORIZATION_ERROR: { message: 'Insufficient permissions' },
  NOT_FOUND: { message: 'Resource not found' },
  METHOD_NOT_ALLOWED: { message: 'Method not allowed on this path' },
  CONFLICT: { message: 'The resource is in a conflicting state' },
  GONE: { message: 'The resource has expired' },
  PAYLOAD_TOO_LARGE: { message: 'Request body too large' },
  UNSUPPORTED_MEDIA_TYPE: { message: 'Content-Type must be application/json' },
  RANGE_NOT_SATISFIABLE: { message: 'Requested range not satisfiable' },
  RATE_LIMIT_EXCEEDED: { message: 'Too many requests' },
  INTERNAL_ERROR: { message: 'Internal server error' },
  SERVICE_UNAVAILABLE: { message: 'Service temporarily unavailable' },
  GRAPHQL_INPUT_TOO_DEEP: { message: 'The GraphQL document is nested too deeply' },
  WEBHOOK_LIMIT_EXCEEDED: { message: 'This key has registered as many webhooks as it may' },
  // Text-to-speech
  INVALID_VOICE: { message: 'Voice not supported by the provider' },
  INVALID_SPEED: { message: 'Speed outside the valid range' },
  INVALID_FORMAT: { message: 'Audio format not supported' },
  INVALID_PROVIDER: { message: 'Unknown provider' },
  INVALID_LANGUAGE: { message: 'Language not supported by the provider' },
  INVALID_OPTION: { message: 'Option outside its valid range' },
  TEXT_TOO_LONG: { message: 'Text exceeds the maximum length' },
  PROVIDER_NOT_CONFIGURED: { message: 'Provider not set up' },
  PROVIDER_A_GENERATION_ERROR: { message: 'Upstream error of provider_a' },
  PROVIDER_B_GENERATION_ERROR: { message: 'Upstream error of provider_b' },
  PROVIDER_C_GENERATION_ERROR: { message: 'Upstream error of provider_c' },
  MOCK_GENERATION_ERROR: { message: 'Generation failed in the mock provider' },
  // Compliance
  INVALID_FRAMEWORK: { message: 'Framework not supported' },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface FieldError {
  field: string;
  message: string;
}

/** A budget a refusal was measured against, with what is left of it (the transports show it to clients). */
export interface Quota {
  unit: 'characters';
  limit: number;
  remaining: number;
  /** Seconds until it is whole again. */
  resetSeconds: number;
}

export interface DomainErrorOptions {
  /** Structured details (object form, as the TTS and dashboard envelopes carry). */
  details?: Record<string, unknown>;
  /** Per-field problems (list form, as the integration envelope carries). */
  fields?: FieldError[];
  /** TTS: the provider involved. */
  provider?: string;
  /** When trying again may succeed (overload, a budget spent, a dependency away). */
  retryAfterSeconds?: number;
  /** The budget the request was refused by. */
  quota?: Quota;
  cause?: unknown;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  readonly fields?: FieldError[];
  readonly provider?: string;
  readonly retryAfterSeconds?: number;
  readonly quota?: Quota;

  constructor(code: ErrorCode, message?: string, opts: DomainErrorOptions = {}) {
    super(message ?? ERROR_CATALOGUE[code].message, { cause: opts.cause });
    this.name = 'DomainError';
    this.code = code;
    this.details = opts.details;
    this.fields = opts.fields;
    this.provider = opts.provider;
    this.retryAfterSeconds = opts.retryAfterSeconds;
    this.quota = opts.quota;
  }
}

/** Upstream trouble and overload: may pass when tried again (a refusal of the request will not). */
export function mayPassOnRetry(err: DomainError): boolean {
  return err.code === 'SERVICE_UNAVAILABLE' || err.code.endsWith('_GENERATION_ERROR');
}

export const notFound = (what: string, id: string) => new DomainError('NOT_FOUND', `${what} '${id}' not found`, { details: { resource: what, id } });

/**
 * Anything that is not a DomainError is a bug or an infrastructure fault: clients get a generic
 * message (never a stack or SQL), and a database that cannot be reached becomes a 503.
 */
export function toDomainError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  if (isDatabaseUnavailable(err)) {
    return new DomainError('SERVICE_UNAVAILABLE', 'The database is unavailable; retry shortly', {
      retryAfterSeconds: 2,
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

/** What the chain of causes of a thrown value may carry (drivers attach `code`; wrappers attach `cause`). */
type ErrorLike = { code?: unknown; message?: unknown; name?: unknown; cause?: unknown } | null | undefined;

function isUnstorableInput(err: unknown): boolean {
  for (let e = err as ErrorLike, depth = 0; e && depth < 5; e = e.cause as ErrorLike, depth++) {
    if (typeof e.code === 'string' && UNSTORABLE_INPUT_CODES.has(e.code)) return true;
  }
  return false;
}

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P03', '08006', '08001', '08003']);

export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err as ErrorLike, depth = 0; e && depth < 5; e = e.cause as ErrorLike, depth++) {
    // A transaction the database guard cut short: its later statements fail with knex's own message.
    if (/Transaction query already complete/.test(String(e.message ?? '')) && databaseKnownDown()) return true;
    if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
    const msg = String(e.message ?? '');
    if (
      /Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout|Timeout acquiring a connection|Knex: Timeout|ECONNREFUSED|Client has encountered a connection error|Connection ended unexpectedly/i.test(
        msg,
      )
    )
      return true;
    if (e.name === 'ConnectionException') return true;
  }
  return false;
}
