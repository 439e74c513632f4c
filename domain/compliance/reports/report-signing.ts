import type { Principal } from '../../auth/principal';
import { clock } from '../../clock';
import { DomainError } from '../../errors';
import { signatureHashOf } from './integrity';
import type { Report } from './report.entity';
import type { ReportSignatureRow } from './render/types';
import type { SIGNATURE_MEANINGS } from './report.inputs';

/** The checks of a signing and the signature it adds, bound to the SHA-256 of the unsigned original (11.70). */
export function newSignature(row: Report, principal: Principal, meaning: (typeof SIGNATURE_MEANINGS)[number]) {
  if (row.status !== 'completed' || !row.recordSha256) {
    throw new DomainError('CONFLICT', `Report '${row.id}' is ${row.status}; only a completed report can be signed`, { details: { reportId: row.id, status: row.status } });
  }
  if (row.expiresAt && row.expiresAt.getTime() <= clock.nowMs()) {
    throw new DomainError('GONE', `Report '${row.id}' expired at ${row.expiresAt.toISOString()}; request a new one`, { details: { reportId: row.id, expiresAt: row.expiresAt.toISOString() } });
  }
  if (!row.model) throw new DomainError('CONFLICT', `Report '${row.id}' was generated before reports could be signed; request a new one`, { details: { reportId: row.id } });
  const signatures = row.signatures ?? [];
  if (signatures.some((x) => x.keyId === principal.keyId && x.meaning === meaning)) {
    throw new DomainError('CONFLICT', `This key has already signed report '${row.id}' as ${meaning}`, { details: { reportId: row.id, meaning } });
  }
  const unsigned = { signerName: principal.name, keyId: principal.keyId, meaning, signedAt: clock.now().toISOString(), recordSha256: row.recordSha256 };
  const signature: ReportSignatureRow = { ...unsigned, signatureHash: signatureHashOf(row.id, unsigned) };
  return { signature, nextSignatures: [...signatures, signature] };
}

