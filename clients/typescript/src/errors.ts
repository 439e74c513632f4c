import { ERROR_STATUS, type ErrorCode } from './generated/constants';

export interface FieldError {
  field: string;
  message: string;
}

/**
 * Every failure the gateway reports, whatever the transport: `code` is the gateway's error code
 * (`INVALID_VOICE`, `AUTHORIZATION_ERROR`, …), `status` the HTTP status. Subclasses let a caller
 * catch a family (`instanceof NotFoundError`); `code` tells the exact case.
 */
export class GatewayError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name: string = 'GatewayError';
  readonly code: C;
  readonly status: number;
  /** The envelope's object details (TTS and dashboard envelopes), if any. */
  readonly details: Record<string, unknown>;
  /** Per-field problems (the integration envelope's `details` list), if any. */
  readonly fields: FieldError[];
  readonly requestId?: string;
  readonly provider?: string;
  /** Seconds to wait before retrying (`Retry-After`), when the gateway said. */
  readonly retryAfterSeconds?: number;

  constructor(
    code: C,
    message: string,
    init: { status?: number; details?: Record<string, unknown>; fields?: FieldError[]; requestId?: string; provider?: string; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.code = code;
    this.status = init.status ?? ERROR_STATUS[code] ?? 500;
    this.details = init.details ?? {};
    this.fields = init.fields ?? [];
    this.requestId = init.requestId;
    this.provider = init.provider ?? undefined;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

type Codes<S extends number> = { [K in ErrorCode]: (typeof ERROR_STATUS)[K] extends S ? K : never }[ErrorCode];

/** 400: the request was refused (VALIDATION_ERROR, INVALID_VOICE, INVALID_FRAMEWORK, TEXT_TOO_LONG, …). */
export class InvalidRequestError extends GatewayError<Codes<400 | 413 | 415 | 416>> {
  override readonly name = 'InvalidRequestError';
}
/** 401: missing or unknown key. */
export class AuthenticationError extends GatewayError<'AUTHENTICATION_ERROR'> {
  override readonly name = 'AuthenticationError';
}
/** 403: the key lacks the permission. */
export class AuthorizationError extends GatewayError<'AUTHORIZATION_ERROR'> {
  override readonly name = 'AuthorizationError';
}
/** 404 / 410: no such resource (or it expired). */
export class NotFoundError extends GatewayError<'NOT_FOUND' | 'GONE'> {
  override readonly name = 'NotFoundError';
}
/** 409: e.g. a report that is not finished yet (`retryAfterSeconds` says when to look again). */
export class ConflictError extends GatewayError<'CONFLICT'> {
  override readonly name = 'ConflictError';
}
/** 429: slow down for `retryAfterSeconds`. */
export class RateLimitError extends GatewayError<'RATE_LIMIT_EXCEEDED'> {
  override readonly name = 'RateLimitError';
}
/** 5xx: the gateway, a speech provider or the database failed. */
export class ServerError extends GatewayError<Codes<500 | 502 | 503>> {
  override readonly name = 'ServerError';
}

const isErrorCode = (c: unknown): c is ErrorCode => typeof c === 'string' && Object.prototype.hasOwnProperty.call(ERROR_STATUS, c);

/** The HTTP status the gateway answers a code with; undefined for a code this client does not know. */
export function statusOfCode(code: string): number | undefined {
  return isErrorCode(code) ? ERROR_STATUS[code] : undefined;
}

/**
 * The exception for a code: the subclass of its family, which a known code decides by its own status
 * (PROVIDER_NOT_CONFIGURED is a ServerError however it arrived, in an HTTP answer or a progressive
 * `error` event). Codes this client does not know keep their text in `details.code` and are placed
 * by the status they came with.
 */
export function errorFor(codeText: string, message: string, init: ConstructorParameters<typeof GatewayError>[2] = {}): GatewayError {
  const known = isErrorCode(codeText);
  const code = (known ? codeText : init.status && init.status >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_ERROR') as ErrorCode;
  const full = { ...init, details: { ...(known ? {} : { code: codeText }), ...init.details } };
  const family = known ? ERROR_STATUS[code] : (init.status ?? ERROR_STATUS[code]);
  if (code === 'AUTHENTICATION_ERROR') return new AuthenticationError(code, message, full);
  if (code === 'AUTHORIZATION_ERROR') return new AuthorizationError(code, message, full);
  if (code === 'NOT_FOUND' || code === 'GONE') return new NotFoundError(code, message, full);
  if (code === 'CONFLICT') return new ConflictError(code, message, full);
  if (code === 'RATE_LIMIT_EXCEEDED') return new RateLimitError(code, message, full);
  // The family is decided by the status at run time, which the code's type cannot express.
  if (family >= 500) return new ServerError(code as ConstructorParameters<typeof ServerError>[0], message, full);
  return new InvalidRequestError(code as ConstructorParameters<typeof InvalidRequestError>[0], message, full);
}

/** Reads any of the gateway's error envelopes (TTS, integration, dashboard, OpenAI's). */
export function errorFromEnvelope(status: number, body: unknown, headers?: Headers): GatewayError {
  const e = (body as { error?: Record<string, unknown> } | null)?.error;
  const retry = Number(headers?.get('retry-after'));
  const retryAfterSeconds = Number.isFinite(retry) && retry >= 0 && headers?.get('retry-after') ? retry : undefined;
  if (!e || typeof e !== 'object') {
    const code =
      status === 401
        ? 'AUTHENTICATION_ERROR'
        : status === 403
          ? 'AUTHORIZATION_ERROR'
          : status === 404
            ? 'NOT_FOUND'
            : status === 429
              ? 'RATE_LIMIT_EXCEEDED'
              : status >= 500
                ? 'INTERNAL_ERROR'
                : 'VALIDATION_ERROR';
    return errorFor(code, `HTTP ${status}`, { status, retryAfterSeconds, requestId: headers?.get('x-request-id') ?? undefined });
  }
  // OpenAI's envelope (/v1/audio/speech, /v1/models): `{message, type, param, code}`, the code lower-cased.
  if (typeof e.type === 'string' && 'param' in e) {
    const param = typeof e.param === 'string' ? e.param : undefined;
    const message = String(e.message ?? `HTTP ${status}`);
    return errorFor(String(e.code ?? '').toUpperCase(), message, {
      status,
      details: {},
      fields: param ? [{ field: param, message }] : [],
      requestId: headers?.get('x-request-id') ?? undefined,
      retryAfterSeconds,
    });
  }
  const details = e.details && typeof e.details === 'object' && !Array.isArray(e.details) ? (e.details as Record<string, unknown>) : {};
  const fields = Array.isArray(e.details) ? (e.details as FieldError[]) : [];
  const requestId = (e.requestId as string | undefined) ?? (details.requestId as string | undefined) ?? headers?.get('x-request-id') ?? undefined;
  return errorFor(String(e.code ?? ''), String(e.message ?? `HTTP ${status}`), {
    status,
    details,
    fields,
    requestId,
    provider: (e.provider as string | null) ?? undefined,
    retryAfterSeconds,
  });
}

/** Narrows an unknown catch value to a gateway error, optionally of one code. */
export function isGatewayError<C extends ErrorCode>(err: unknown, code?: C): err is GatewayError<C> {
  return err instanceof GatewayError && (code === undefined || err.code === code);
}
