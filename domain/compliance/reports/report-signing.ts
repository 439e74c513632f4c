import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../../auth/principal';
import { clock } from '../../clock';
import { DomainError } from '../../errors';
import { sha256Of, signatureHashOf } from './integrity';
import { Report } from './report.entity';
import type { ReportSignatureRow } from './render/types';
import type { ReportVerification, SIGNATURE_MEANINGS } from './report.inputs';

type Meaning = (typeof SIGNATURE_MEANINGS)[number];

const expiredError = (row: Report) =>
  new DomainError('GONE', `Report '${row.id}' expired at ${row.expiresAt!.toISOString()}; request a new one`, {
    details: { reportId: row.id, expiresAt: row.expiresAt!.toISOString() },
  });

/**
 * The SHA-256 a new signature binds (21 CFR 11.70): the hash of the file stored for the report,
 * computed from its bytes now. The file is never rendered again (issue 37), so what a signer approves
 * is exactly the file a reader downloads and `verify` checks. A stored file that no longer hashes to
 * the published `sha256` is refused: nobody signs a file that changed under the record.
 */
export async function storedFileSha256(em: EntityManager, row: Report): Promise<string> {
  if (row.status !== 'completed' || !row.sha256) {
    throw new DomainError('CONFLICT', `Report '${row.id}' is ${row.status}; only a completed report can be signed`, {
      details: { reportId: row.id, status: row.status },
    });
  }
  if (row.expiresAt && row.expiresAt.getTime() <= clock.nowMs()) throw expiredError(row);
  await em.populate(row, ['content']);
  if (!row.content) throw new DomainError('GONE', `Report '${row.id}' is no longer available`, { details: { reportId: row.id } });
  const sha256 = sha256Of(Buffer.from(row.content));
  if (sha256 !== row.sha256) {
    throw new DomainError('CONFLICT', `The stored file of report '${row.id}' does not match its published SHA-256; it cannot be signed`, {
      details: { reportId: row.id, expectedSha256: row.sha256, sha256 },
    });
  }
  return sha256;
}

/** The signature a key adds with a stated meaning (11.50), bound to `fileSha256`; one per key and meaning. */
export function newSignature(row: Report, principal: Principal, meaning: Meaning, fileSha256: string) {
  const signatures = row.signatures ?? [];
  if (signatures.some((x) => x.keyId === principal.keyId && x.meaning === meaning)) {
    throw new DomainError('CONFLICT', `This key has already signed report '${row.id}' as ${meaning}`, { details: { reportId: row.id, meaning } });
  }
  const unsigned = { signerName: principal.name, keyId: principal.keyId, meaning, signedAt: clock.now().toISOString(), recordSha256: fileSha256 };
  const signature: ReportSignatureRow = { ...unsigned, signatureHash: signatureHashOf(row.id, unsigned) };
  return { signature, nextSignatures: [...signatures, signature] };
}

/**
 * Records a signature in one short transaction: the row is locked, the file must still be the one
 * hashed (its `sha256` unchanged), and the key must not have signed with this meaning meanwhile.
 * Nothing is rendered and the stored file is not touched. `audit` writes the audit-trail entry.
 */
export async function recordSignature(
  em: EntityManager,
  reportId: string,
  principal: Principal,
  meaning: Meaning,
  fileSha256: string,
  audit: (tx: EntityManager, row: Report, before: { sha256: string | null; signatures: number }, signature: ReportSignatureRow) => void,
): Promise<{ row: Report; signature: ReportSignatureRow }> {
  return em.transactional(async (tx) => {
    const t = tx as EntityManager;
    const current = await t.findOne(Report, { id: reportId, origin: 'compliance' }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!current) throw new DomainError('NOT_FOUND', `Report '${reportId}' not found`, { details: { resource: 'Report', id: reportId } });
    if (current.expiresAt && current.expiresAt.getTime() <= clock.nowMs()) throw expiredError(current);
    if (current.sha256 !== fileSha256)
      throw new DomainError('CONFLICT', `Report '${reportId}' changed while it was being signed; sign again`, { details: { reportId } });
    const before = { sha256: current.sha256 ?? null, signatures: (current.signatures ?? []).length };
    const { signature, nextSignatures } = newSignature(current, principal, meaning, fileSha256);
    current.signatures = nextSignatures;
    audit(t, current, before, signature);
    return { row: current, signature };
  });
}

/**
 * Is `bytes` a file this report served? The answer names the rendition (the file as generated, or a
 * signed rendition of a report signed before issue 37) and the signatures bound to it.
 */
export function verification(row: Report, bytes: Buffer): ReportVerification {
  if (row.status !== 'completed' || !row.sha256) {
    throw new DomainError('CONFLICT', `Report '${row.id}' has no file to compare with (status ${row.status})`, {
      details: { reportId: row.id, status: row.status },
    });
  }
  const sha256 = sha256Of(bytes);
  const renditions = row.renditions?.length
    ? row.renditions
    : [{ sha256: row.sha256, size: row.size ?? 0, signatures: 0, renderedAt: row.generatedAt?.toISOString() ?? '' }];
  const match = renditions.find((r) => r.sha256 === sha256) ?? null;
  const current = !!match && match.sha256 === row.sha256;
  const all = row.signatures ?? [];
  // Signatures bind a file's hash; a legacy signed rendition showed the first n signatures in its pages.
  const signatures = !match ? [] : match.signatures === 0 ? all.filter((s) => s.recordSha256 === match.sha256) : all.slice(0, match.signatures);
  const count = signatures.length ? ` ${signatures.length} signature${signatures.length === 1 ? ' is' : 's are'} bound to it.` : '';
  return {
    reportId: row.id,
    valid: !!match,
    sha256,
    size: bytes.length,
    expectedSha256: row.sha256,
    recordSha256: row.recordSha256 ?? row.sha256,
    matches: match ? (match.signatures === 0 ? 'original' : 'signed') : null,
    current,
    signatures,
    message: match
      ? `The file is ${match.signatures === 0 ? 'the report as generated' : `the report with ${match.signatures} signature${match.signatures === 1 ? '' : 's'}`}${current ? '' : ' (not the file served now)'}; not one byte differs.${count}`
      : 'The file does not match any file of this report: it was altered, or it is another report.',
  };
}
