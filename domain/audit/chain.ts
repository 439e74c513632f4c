import { hash } from 'node:crypto';

/** The `previousHash` of the first row of the chain. */
export const GENESIS_HASH = '0'.repeat(64);

export const sha256Hex = (data: string | Buffer) => hash('sha256', data, 'hex');

/**
 * JSON with object members in code-point order at every level and no insignificant whitespace, so
 * the same content always gives the same bytes however it was stored (jsonb reorders members).
 */
export function canonicalJson(value: unknown): string {
  // Loops instead of entries/filter/sort/map/join: this runs for every trail row written and sealed
  // (issue #36), and the intermediate arrays were most of its cost. Same bytes: keys sorted by
  // UTF-16 code units (the default sort, as the `<` comparison was), undefined members left out.
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i) out += ',';
      const v: unknown = value[i];
      out += v === undefined ? 'null' : canonicalJson(v);
    }
    return out + ']';
  }
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    let out = '{';
    for (const k of keys) {
      const v = record[k];
      if (v === undefined) continue;
      if (out.length > 1) out += ',';
      out += `${JSON.stringify(k)}:${canonicalJson(v)}`;
    }
    return out + '}';
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return 'null';
  return JSON.stringify(value);
}

/** What a trail row says; its SHA-256 is the row's `contentHash`. */
export interface AuditContent {
  id: string;
  at: Date;
  keyId: string | null;
  actor: string;
  action: string;
  entityType: string;
  entityId: string;
  requestId: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export function contentHashOf(c: AuditContent): string {
  return sha256Hex(
    canonicalJson({
      v: 1,
      id: c.id,
      at: c.at.toISOString(),
      keyId: c.keyId,
      actor: c.actor,
      action: c.action,
      entityType: c.entityType,
      entityId: c.entityId,
      requestId: c.requestId,
      before: c.before,
      after: c.after,
    }),
  );
}

/** A sealed row's own hash: its position, the previous row's hash and its content hash. */
export const chainHashOf = (seq: number, previousHash: string, contentHash: string) => sha256Hex(`${seq}:${previousHash}:${contentHash}`);

/**
 * The members of two views whose values differ, each with its value before and after (members
 * compared by canonical JSON, so nested objects and arrays count by value).
 */
export function changedFields(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  ignore: readonly string[] = [],
): { before: Record<string, unknown> | null; after: Record<string, unknown> | null; fields: string[] } {
  if (!before || !after) return { before, after, fields: Object.keys(after ?? before ?? {}).filter((k) => !ignore.includes(k)) };
  const out = { before: {} as Record<string, unknown>, after: {} as Record<string, unknown>, fields: [] as string[] };
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (ignore.includes(key)) continue;
    if (canonicalJson(before[key] ?? null) === canonicalJson(after[key] ?? null)) continue;
    out.before[key] = before[key] ?? null;
    out.after[key] = after[key] ?? null;
    out.fields.push(key);
  }
  return out;
}
