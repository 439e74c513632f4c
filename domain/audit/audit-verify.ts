import type { EntityManager } from '@mikro-orm/postgresql';
import { clock } from '../clock';
import { chainHashOf, GENESIS_HASH } from './chain';
import { contentOf, ROW_COLUMNS, type TrailRow } from './trail-rows';

export type AuditProblem = 'content-altered' | 'hash-altered' | 'link-broken' | 'rows-missing';
export const AUDIT_PROBLEMS: readonly AuditProblem[] = ['content-altered', 'hash-altered', 'link-broken', 'rows-missing'];

export interface AuditVerification {
  /** True when every sealed row checks out and no unsealed row was altered. */
  intact: boolean;
  verifiedAt: string;
  rows: { total: number; sealed: number; unsealed: number };
  /** Rows written but not yet sealed into the chain (normally for well under a second after their commit). */
  oldestUnsealedAt: string | null;
  /** The last sealed row: record its hash elsewhere to anchor everything before it. */
  head: { seq: number; hash: string; at: string } | null;
  firstBroken: { seq: number | null; id: string; problem: AuditProblem; message: string; expected: string; found: string } | null;
  problems: number;
}

const VERIFY_BATCH = 1000;

/** Walks the whole chain in order and recomputes every hash; reports the first broken link. */
export async function verifyTrail(em: EntityManager): Promise<AuditVerification> {
  const conn = em.getConnection();
  let problems = 0;
  let firstBroken: AuditVerification['firstBroken'] = null;
  const flag = (broken: NonNullable<AuditVerification['firstBroken']>) => {
    problems++;
    firstBroken ??= broken;
  };
  let expectedSeq = 1;
  let previousHash = GENESIS_HASH;
  let sealed = 0;
  let head: AuditVerification['head'] = null;
  for (;;) {
    const rows = await conn.execute<TrailRow[]>(`select ${ROW_COLUMNS} from audit_trail where seq >= ? order by seq limit ?`, [expectedSeq, VERIFY_BATCH]);
    for (const r of rows) {
      const seq = Number(r.seq);
      sealed++;
      if (seq !== expectedSeq) {
        flag({
          seq,
          id: r.id,
          problem: 'rows-missing',
          message: `rows ${expectedSeq}…${seq - 1} of the chain are missing`,
          expected: String(expectedSeq),
          found: String(seq),
        });
      }
      const content = contentOf(r);
      if (content !== r.content_hash) {
        flag({
          seq,
          id: r.id,
          problem: 'content-altered',
          message: `row ${seq} no longer matches its content hash: its content was changed`,
          expected: r.content_hash,
          found: content,
        });
      }
      if (r.previous_hash !== previousHash) {
        flag({
          seq,
          id: r.id,
          problem: 'link-broken',
          message: `row ${seq} does not link to the row before it`,
          expected: previousHash,
          found: String(r.previous_hash),
        });
      }
      const own = chainHashOf(seq, String(r.previous_hash), r.content_hash);
      if (own !== r.hash) {
        flag({
          seq,
          id: r.id,
          problem: 'hash-altered',
          message: `row ${seq} carries a hash that does not follow from its position, link and content`,
          expected: own,
          found: String(r.hash),
        });
      }
      previousHash = String(r.hash);
      expectedSeq = seq + 1;
      head = { seq, hash: String(r.hash), at: new Date(r.at).toISOString() };
    }
    if (rows.length < VERIFY_BATCH) break;
  }
  // Unsealed rows have no link yet, but their content hash is checked all the same.
  let unsealed = 0;
  let oldestUnsealedAt: string | null = null;
  for (let offset = 0; ; offset += VERIFY_BATCH) {
    const rows = await conn.execute<TrailRow[]>(`select ${ROW_COLUMNS} from audit_trail where seq is null order by at, id limit ? offset ?`, [
      VERIFY_BATCH,
      offset,
    ]);
    for (const r of rows) {
      unsealed++;
      oldestUnsealedAt ??= new Date(r.at).toISOString();
      const content = contentOf(r);
      if (content !== r.content_hash) {
        flag({
          seq: null,
          id: r.id,
          problem: 'content-altered',
          message: `unsealed row ${r.id} no longer matches its content hash`,
          expected: r.content_hash,
          found: content,
        });
      }
    }
    if (rows.length < VERIFY_BATCH) break;
  }
  return {
    intact: problems === 0,
    verifiedAt: clock.now().toISOString(),
    rows: { total: sealed + unsealed, sealed, unsealed },
    oldestUnsealedAt,
    head,
    firstBroken,
    problems,
  };
}
