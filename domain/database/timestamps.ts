/**
 * A `timestamptz` as the API writes it (ISO 8601, UTC, milliseconds: `Date#toISOString`), from the
 * text the driver hands over (MikroORM's PostgreSQL connection keeps timestamps as PostgreSQL's text,
 * e.g. `2026-11-25 19:41:16.123+00`) or from a Date.
 *
 * The answer is the one `new Date(text).toISOString()` gives, without V8's general date parser (the
 * most of a list row's mapping cost): PostgreSQL's own UTC form is rewritten as a string, its
 * fraction cut to milliseconds as the parser cuts it; any other form (another session time zone, a
 * year before 1000) still goes through `Date`.
 */
const PG_UTC = /^[1-9]\d{3}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?\+00$/;

export function isoOfTimestamp(value: Date | string): string {
  if (typeof value !== 'string') return value.toISOString();
  if (!PG_UTC.test(value)) return new Date(value).toISOString();
  const n = value.length;
  const whole = `${value.slice(0, 10)}T${value.slice(11, 19)}`;
  if (n === 22) return `${whole}.000Z`;
  const fraction = value.slice(20, n - 3);
  return `${whole}.${fraction.length >= 3 ? fraction.slice(0, 3) : fraction.padEnd(3, '0')}Z`;
}

/** The same for a column that may be null. */
export const isoOfNullableTimestamp = (value: Date | string | null | undefined): string | null =>
  value === null || value === undefined ? null : isoOfTimestamp(value);
