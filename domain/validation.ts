import type { z } from 'zod';
import { DomainError, type ErrorCode, type FieldError } from './errors';

/** Parses untrusted input with a zod schema; failures become VALIDATION_ERROR with one entry per field. */
export function parseInput<S extends z.ZodType>(schema: S, raw: unknown, code: ErrorCode = 'VALIDATION_ERROR'): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) {
    const nulAt = findNulCharacter(result.data);
    if (nulAt !== null) {
      const fields = [{ field: nulAt || '(body)', message: 'must not contain the NUL character (U+0000)' }];
      throw new DomainError(code, `Invalid request: ${fields[0].field}: must not contain the NUL character (U+0000)`, { fields, details: { fields } });
    }
    return result.data;
  }
  const fields = zodFieldErrors(result.error);
  const summary = fields
    .slice(0, 3)
    .map((f) => (f.field ? `${f.field}: ${f.message}` : f.message))
    .join('; ');
  throw new DomainError(code, `Invalid request: ${summary}`, { fields, details: { fields } });
}

export function zodFieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.slice(0, 50).map((issue) => ({
    field: issue.path.map(String).join('.') || '(body)',
    message: issue.message,
  }));
}

/** Throws VALIDATION_ERROR naming the field when any string in `value` holds U+0000 (for raw ids and arguments that skip parseInput). */
export function rejectNulCharacters(value: unknown): void {
  const at = findNulCharacter(value);
  if (at === null) return;
  const fields = [{ field: at || '(input)', message: 'must not contain the NUL character (U+0000)' }];
  throw new DomainError('VALIDATION_ERROR', `Invalid request: ${fields[0].field}: must not contain the NUL character (U+0000)`, { fields, details: { fields } });
}

/**
 * PostgreSQL text cannot hold U+0000, so a string carrying one would fail at the database as an
 * internal error; it is refused here as the client's mistake instead. Returns the field path or null.
 */
export function findNulCharacter(value: unknown, path = '', depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (depth > 32 || value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findNulCharacter(value[i], path ? `${path}.${i}` : String(i), depth + 1);
      if (hit !== null) return hit;
    }
    return null;
  }
  if (value instanceof Date || ArrayBuffer.isView(value)) return null;
  for (const [k, v] of Object.entries(value)) {
    const here = path ? `${path}.${k}` : k;
    if (k.includes('\u0000')) return here;
    const hit = findNulCharacter(v, here, depth + 1);
    if (hit !== null) return hit;
  }
  return null;
}

/** Strict base64 (GraphQL and tRPC carry file bytes so): anything else is a VALIDATION_ERROR on `field`. */
export function decodeBase64(value: unknown, field: string): Buffer {
  const text = typeof value === 'string' ? value.replace(/\s+/g, '') : null;
  if (text === null || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) {
    throw new DomainError('VALIDATION_ERROR', `${field} must be base64`, { fields: [{ field, message: 'must be base64 (RFC 4648)' }] });
  }
  return Buffer.from(text, 'base64');
}
