import { type DomainError } from '../domain/errors';
import type { Envelope } from './route';

/**
 * The documented error bodies. TTS: `{error: {message, code, provider, details}}`; compliance
 * integration: `{error: {code, message, details: [{field, message}], requestId}}`; dashboard:
 * `{error: {code, message, details: {}}}`. Nothing else (no stack, no SQL) ever leaves.
 */
export function errorBody(envelope: Envelope, err: DomainError, requestId: string) {
  switch (envelope) {
    case 'tts':
      return {
        error: {
          message: err.message,
          code: err.code,
          provider: err.provider ?? null,
          details: { ...(err.details ?? {}), ...(err.fields ? { fields: err.fields } : {}), requestId },
        },
      };
    case 'integration':
      return {
        error: {
          code: err.code,
          message: err.message,
          // The list form is the integration contract; INVALID_FRAMEWORK's details are documented as an object.
          details: err.code === 'INVALID_FRAMEWORK' ? err.details ?? {} : err.fields ?? detailsAsFields(err),
          requestId,
        },
      };
    case 'dashboard':
      return {
        error: {
          code: err.code,
          message: err.message,
          details: { ...(err.details ?? {}), ...(err.fields ? { fields: err.fields } : {}), requestId },
        },
      };
  }
}

function detailsAsFields(err: DomainError) {
  if (!err.details) return [];
  return Object.entries(err.details)
    .filter(([, v]) => typeof v !== 'object' || v === null)
    .map(([field, v]) => ({ field, message: String(v) }));
}

/** Envelope for a path no route matched, chosen by prefix. */
export function envelopeForPath(path: string): Envelope {
  if (path.startsWith('/api/v1')) return 'tts';
  if (path.startsWith('/v1/dashboard') || path.startsWith('/api/dashboard')) return 'dashboard';
  return 'integration';
}
