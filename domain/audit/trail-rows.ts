import { contentHashOf } from './chain';

/** A row of `audit_trail` as the database answers it (for sealing and verification). */
export interface TrailRow {
  id: string;
  seq: string | number | null;
  at: Date | string;
  key_id: string | null;
  actor: string;
  action: string;
  entity_type: string;
  entity_id: string;
  request_id: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  content_hash: string;
  previous_hash: string | null;
  hash: string | null;
}

export const ROW_COLUMNS = 'id, seq, at, key_id, actor, action, entity_type, entity_id, request_id, before, after, content_hash, previous_hash, hash';

/** The content hash a stored row's values give now (compared with the one it was written with). */
export const contentOf = (r: TrailRow) =>
  contentHashOf({
    id: r.id,
    at: new Date(r.at),
    keyId: r.key_id,
    actor: r.actor,
    action: r.action,
    entityType: r.entity_type,
    entityId: r.entity_id,
    requestId: r.request_id,
    before: r.before,
    after: r.after,
  });
