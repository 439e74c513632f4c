import { type DomainError } from '../domain/errors';
import { openAiErrorBody } from '../transport/openai-error';
import type { Envelope } from './route';

/**
 * The documented error bodies. TTS: `{error: {message, code, provider, details}}`; compliance
 * integration: `{error: {code, message, details: [{field, message}], requestId}}`; dashboard:
 * `{error: {code, message, details: {}}}`; OpenAI-compatible speech: OpenAI's `{error: {message, type,
 * param, code}}` (transport/openai-error.ts). Nothing else (no stack, no SQL) ever leaves.
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
          details: err.code === 'INVALID_FRAMEWORK' ? (err.details ?? {}) : (err.fields ?? detailsAsFields(err)),
          requestId,
        },
      };
    case 'openai':
      return openAiErrorBody(err);
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
  if (isOpenAiPath(path)) return 'openai';
  if (path.startsWith('/v1/dashboard') || path.startsWith('/api/dashboard')) return 'dashboard';
  return 'integration';
}

/** The OpenAI-compatible paths (`/v1/audio/…`, `/v1/models`), which answer in OpenAI's envelope. */
export const isOpenAiPath = (path: string) => path.startsWith('/v1/audio/') || path === '/v1/models' || path.startsWith('/v1/models/');
