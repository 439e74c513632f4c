import type { z } from 'zod';
import { DomainError, type ErrorCode, type FieldError } from './errors';

/** Parses untrusted input with a zod schema; failures become VALIDATION_ERROR with one entry per field. */
export function parseInput<S extends z.ZodType>(schema: S, raw: unknown, code: ErrorCode = 'VALIDATION_ERROR'): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
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
