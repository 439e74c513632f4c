import type { DomainError, ErrorCode } from '../domain/errors';

/**
 * OpenAI's error `type`s. The openai SDKs choose their exception by the HTTP status alone
 * (400 BadRequestError, 401 AuthenticationError, 403 PermissionDeniedError, 404 NotFoundError,
 * 409 ConflictError, 422 UnprocessableEntityError, 429 RateLimitError, ≥500 InternalServerError);
 * `type` and `code` tell the rest.
 */
export type OpenAiErrorType = 'invalid_request_error' | 'authentication_error' | 'permission_error' | 'not_found_error' | 'rate_limit_error' | 'server_error';

/** Each catalogue code's OpenAI `type`; a code added to the catalogue does not compile until it is here. */
const TYPE: Record<ErrorCode, OpenAiErrorType> = {
  VALIDATION_ERROR: 'invalid_request_error',
  AUTHENTICATION_ERROR: 'authentication_error',
  AUTHORIZATION_ERROR: 'permission_error',
  NOT_FOUND: 'not_found_error',
  METHOD_NOT_ALLOWED: 'invalid_request_error',
  CONFLICT: 'invalid_request_error',
  GONE: 'not_found_error',
  PAYLOAD_TOO_LARGE: 'invalid_request_error',
  UNSUPPORTED_MEDIA_TYPE: 'invalid_request_error',
  RANGE_NOT_SATISFIABLE: 'invalid_request_error',
  RATE_LIMIT_EXCEEDED: 'rate_limit_error',
  INTERNAL_ERROR: 'server_error',
  SERVICE_UNAVAILABLE: 'server_error',
  GRAPHQL_INPUT_TOO_DEEP: 'invalid_request_error',
  WEBHOOK_LIMIT_EXCEEDED: 'invalid_request_error',
  INVALID_VOICE: 'invalid_request_error',
  INVALID_SPEED: 'invalid_request_error',
  INVALID_FORMAT: 'invalid_request_error',
  INVALID_PROVIDER: 'invalid_request_error',
  INVALID_LANGUAGE: 'invalid_request_error',
  INVALID_OPTION: 'invalid_request_error',
  TEXT_TOO_LONG: 'invalid_request_error',
  PROVIDER_NOT_CONFIGURED: 'server_error',
  PROVIDER_A_GENERATION_ERROR: 'server_error',
  PROVIDER_B_GENERATION_ERROR: 'server_error',
  PROVIDER_C_GENERATION_ERROR: 'server_error',
  MOCK_GENERATION_ERROR: 'server_error',
  INVALID_FRAMEWORK: 'invalid_request_error',
};

/**
 * The request field (`param`) a code is about when the error names none: the generation's checks
 * speak of its own request (`options.voice`), the OpenAI request names the same things its way.
 */
const PARAM_OF_CODE: Partial<Record<ErrorCode, string>> = {
  INVALID_VOICE: 'voice',
  INVALID_SPEED: 'speed',
  INVALID_FORMAT: 'response_format',
  INVALID_PROVIDER: 'model',
  TEXT_TOO_LONG: 'input',
};

/** A generation request's field as OpenAI's speech request names it (a Map: a field is client text, `__proto__` included). */
const PARAM_OF_FIELD = new Map<string, string>([
  ['text', 'input'],
  ['options.provider', 'model'],
  ['options.quality', 'model'],
  ['options.voice', 'voice'],
  ['options.speed', 'speed'],
  ['options.format', 'response_format'],
]);

export interface OpenAiErrorBody {
  error: { message: string; type: OpenAiErrorType; param: string | null; code: string };
}

/**
 * OpenAI's error envelope `{error: {message, type, param, code}}` for a domain error: `code` is the
 * catalogue code in OpenAI's lower-case spelling (`invalid_voice`, `rate_limit_exceeded`), `param`
 * the request field at fault, when there is one.
 */
export function openAiErrorBody(err: DomainError): OpenAiErrorBody {
  const field = err.fields?.[0]?.field;
  const named = field === undefined || field === '(body)' ? undefined : (PARAM_OF_FIELD.get(field) ?? field.replace(/^options\./, ''));
  return {
    error: {
      message: err.message,
      type: TYPE[err.code],
      param: named ?? PARAM_OF_CODE[err.code] ?? null,
      code: err.code.toLowerCase(),
    },
  };
}
