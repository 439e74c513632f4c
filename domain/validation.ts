import type { z } from 'zod';
import { DomainError, type ErrorCode, type FieldError } from './errors';

/** Parses untrusted input with a zod schema; failures become VALIDATION_ERROR with one entry per field. */
export function parseInput<S extends z.ZodType>(schema: S, raw: unknown, code: ErrorCode = 'VALIDATION_ERROR'): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) {
    const bad = findUnstorableString(result.data);
    if (bad) throw unstorableError(bad, code, '(body)');
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

/** Why a string cannot be stored, as the field message says it. */
export type UnstorableReason = 'nul' | 'lone-surrogate';
const REASON_MESSAGES: Record<UnstorableReason, string> = {
  nul: 'must not contain the NUL character (U+0000)',
  'lone-surrogate': 'must be well-formed Unicode (no lone surrogate such as \\ud800)',
};

function unstorableError(bad: { path: string; reason: UnstorableReason }, code: ErrorCode, whole: string) {
  const fields = [{ field: bad.path || whole, message: REASON_MESSAGES[bad.reason] }];
  return new DomainError(code, `Invalid request: ${fields[0].field}: ${fields[0].message}`, { fields, details: { fields } });
}

/**
 * Throws VALIDATION_ERROR naming the field when any string (or key) in `value` cannot be stored: it
 * holds U+0000 or is not well-formed Unicode. Every transport runs it on raw input before any work
 * (bodies, query and path values, arguments), and parseInput runs it too.
 */
export function rejectUnstorableStrings<T>(value: T): T {
  const bad = findUnstorableString(value);
  if (bad) throw unstorableError(bad, 'VALIDATION_ERROR', '(input)');
  return value;
}

/** Whether a string can be stored and encoded as UTF-8 unchanged (see findUnstorableString). */
export function unstorableReason(s: string): UnstorableReason | null {
  if (s.includes('\u0000')) return 'nul';
  // A lone surrogate has no UTF-8 form: encoders silently turn it into U+FFFD (so the text stored
  // is not the text sent) and PostgreSQL's jsonb refuses its `\ud800` escape outright.
  if (!(s as string & { isWellFormed(): boolean }).isWellFormed()) return 'lone-surrogate';
  return null;
}

/**
 * PostgreSQL text cannot hold U+0000 and no UTF-8 text holds a lone surrogate, so a string carrying
 * either would fail at the database as an internal error (or be altered on the way); it is refused
 * as the client's mistake instead. Returns the field path and the reason, or null.
 */
export function findUnstorableString(value: unknown, path = '', depth = 0): { path: string; reason: UnstorableReason } | null {
  if (typeof value === 'string') {
    const reason = unstorableReason(value);
    return reason ? { path, reason } : null;
  }
  if (depth > 32 || value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findUnstorableString(value[i], path ? `${path}.${i}` : String(i), depth + 1);
      if (hit) return hit;
    }
    return null;
  }
  if (value instanceof Date || ArrayBuffer.isView(value)) return null;
  for (const [k, v] of Object.entries(value)) {
    const here = path ? `${path}.${k}` : k;
    const keyReason = unstorableReason(k);
    if (keyReason) return { path: here, reason: keyReason };
    const hit = findUnstorableString(v, here, depth + 1);
    if (hit) return hit;
  }
  return null;
}

/** Strict base64 (how JSON carries file bytes): anything else is a VALIDATION_ERROR on `field`. */
export function decodeBase64(value: unknown, field: string): Buffer {
  const text = typeof value === 'string' ? value.replace(/\s+/g, '') : null;
  if (text === null || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) {
    throw new DomainError('VALIDATION_ERROR', `${field} must be base64`, { fields: [{ field, message: 'must be base64 (RFC 4648)' }] });
  }
  return Buffer.from(text, 'base64');
}
