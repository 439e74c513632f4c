import { createHash } from 'node:crypto';
import type { ReportSignatureRow } from './render/types';

export const sha256Of = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/**
 * The binding of an electronic signature (21 CFR 11.70): SHA-256 over the report id, the record's
 * hash and the signature's own fields, in a fixed order. Changing the record, the signer, the time
 * or the meaning changes it; a signature copied to another report does not match.
 */
export function signatureHashOf(reportId: string, s: Omit<ReportSignatureRow, 'signatureHash'>): string {
  return sha256Of(JSON.stringify(['report-signature/v1', reportId, s.recordSha256, s.keyId, s.signerName, s.meaning, s.signedAt]));
}
