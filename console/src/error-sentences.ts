/**
 * What each API error code means to a person, in one sentence. The server's own message follows as
 * the detail (it names the field, the limit or the record). Codes not listed here (none today: a
 * jest test checks this against domain/errors.ts) show the server's message alone.
 */
export const ERROR_SENTENCES: Record<string, string> = {
  // The gateway's catalogue (domain/errors.ts)
  VALIDATION_ERROR: 'Some of what you entered is not valid.',
  AUTHENTICATION_ERROR: 'This key is not valid: it may be mistyped, revoked or expired.',
  AUTHORIZATION_ERROR: "Your key doesn't have permission to do this.",
  NOT_FOUND: 'This no longer exists, or never did.',
  METHOD_NOT_ALLOWED: 'This address does not take that kind of request.',
  CONFLICT: 'Someone changed this at the same time; reload and try again.',
  GONE: 'This has expired.',
  PAYLOAD_TOO_LARGE: 'This is too large to send.',
  GRAPHQL_INPUT_TOO_DEEP: 'This query nests its values too deeply for the gateway to read.',
  WEBHOOK_LIMIT_EXCEEDED: 'This key already has as many webhooks as it may; remove one first.',
  UNSUPPORTED_MEDIA_TYPE: 'The gateway could not read this request.',
  RANGE_NOT_SATISFIABLE: 'That part of the file does not exist.',
  RATE_LIMIT_EXCEEDED: 'Too many requests just now; wait a moment and try again.',
  INTERNAL_ERROR: 'Something went wrong in the gateway; the request was not completed.',
  SERVICE_UNAVAILABLE: 'The gateway is busy or a service it needs is away; try again shortly.',
  INVALID_VOICE: 'This provider does not offer that voice.',
  INVALID_SPEED: 'That speed is outside what this provider allows.',
  INVALID_FORMAT: 'That audio format is not supported.',
  INVALID_PROVIDER: 'There is no such speech provider.',
  INVALID_LANGUAGE: 'This provider does not speak that language.',
  INVALID_OPTION: 'This provider does not support one of the chosen options.',
  TEXT_TOO_LONG: 'The text is too long for one request.',
  PROVIDER_NOT_CONFIGURED: 'This speech provider is not set up on this gateway; choose another.',
  PROVIDER_A_GENERATION_ERROR: 'Provider A could not make the audio; try again or choose another provider.',
  PROVIDER_B_GENERATION_ERROR: 'Provider B could not make the audio; try again or choose another provider.',
  PROVIDER_C_GENERATION_ERROR: 'Provider C could not make the audio; try again or choose another provider.',
  MOCK_GENERATION_ERROR: 'The mock provider failed to make the audio.',
  INVALID_FRAMEWORK: 'There is no such compliance framework.',
  // The console's own
  NETWORK_ERROR: 'The gateway cannot be reached; check your connection.',
};

/** The sentence for a code, or null when there is none (the caller shows the server's message). */
export function sentenceFor(code: string): string | null {
  return Object.prototype.hasOwnProperty.call(ERROR_SENTENCES, code) ? ERROR_SENTENCES[code] : null;
}
