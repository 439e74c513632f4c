import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { callJson, issueKey, useGateway, type TestGateway } from '../helpers/gateway';

/**
 * Reports an auditor accepts, over real HTTP: Unicode kept exactly (read back with poppler's
 * pdftotext), organisation, requester, scope, coverage, every requirement and finding in full, an
 * approval block; the file's SHA-256 published and re-checked from raw bytes; electronic signatures
 * with a stated meaning, shown on the report and bound to its hash.
 */
const ORGANISATION = 'Müller & Søn Medizintechnik GmbH';
const TITLE = '✓ 数据 «sofort»';

const gw = useGateway({ ORGANISATION_NAME: ORGANISATION });

const call = (path: string, init?: Parameters<TestGateway['request']>[1]) => callJson(gw, path, init);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const pdfText = (pdf: Buffer) => execFileSync('pdftotext', ['-enc', 'UTF-8', '-', '-'], { input: pdf }).toString('utf8');
/** pdftotext lays text out in lines; the assertions read it as one running text. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

async function completed(reportId: string) {
  const until = Date.now() + 30_000;
  for (;;) {
    const { body } = await call(`/v1/compliance/reports/${reportId}`);
    if (body.status === 'completed') return body;
    if (body.status === 'failed' || Date.now() > until) throw new Error(`report did not complete: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function download(url: string, auth?: string) {
  const res = await gw.request(url, auth ? { auth } : {});
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

const verify = (reportId: string, bytes: Buffer, contentType = 'application/pdf', auth?: string) =>
  call(`/v1/compliance/reports/${reportId}/verify`, { method: 'POST', body: bytes, headers: { 'content-type': contentType }, ...(auth ? { auth } : {}) });

let requirementId: string;
let findingId: string;
let report: any;
let original: Buffer;
let requesterKey: string;

describe('a compliance report in full', () => {
  test('Unicode is kept exactly, with organisation, requester, scope, coverage, requirements, findings, traceability and approval', async () => {
    const req = await call('/v1/requirements', {
      method: 'POST',
      json: {
        title: TITLE,
        description: 'Audit trail entries are time-stamped and keep the previous value — Prüfpfad für jede Änderung.',
        framework: 'fda21cfr11',
        priority: 'critical',
        acceptanceCriteria: ['Every change writes an audit trail entry with user and time', 'Ältere Werte bleiben lesbar'],
      },
    });
    expect(req.status).toBe(201);
    requirementId = req.body.id;
    await call(`/v1/requirements/${requirementId}/validate`, { method: 'POST' });
    const finding = await call('/v1/audits/findings', {
      method: 'POST',
      json: {
        title: 'Zeitzone fehlt im Export',
        description: 'Exported entries show local time without offset.',
        framework: 'fda21cfr11',
        severity: 'medium',
        requirementId,
        evidence: ['SOP-12 rev 3 «signed» ✓'],
      },
    });
    findingId = finding.body.id;
    await call(`/v1/audits/findings/${findingId}`, {
      method: 'PATCH',
      json: { status: 'resolved', resolution: 'Offsets added to every exported timestamp (UTC±hh:mm).' },
    });

    requesterKey = await issueKey(gw, ['write:compliance', 'read:compliance', 'read:audits'], { name: 'Grace Hopper (QA)' });
    const created = await call('/v1/compliance/reports', {
      method: 'POST',
      auth: requesterKey,
      json: { framework: 'fda21cfr11', format: 'pdf', includeEvidence: true, title: TITLE },
    });
    expect(created.status).toBe(202);
    report = await completed(created.body.reportId);
    original = await download(report.downloadUrl, requesterKey);
    expect(original.subarray(0, 5).toString('latin1')).toBe('%PDF-');

    const raw = pdfText(original);
    // The exact title, character for character, as a line of its own.
    expect(raw.split('\n')).toContain(TITLE);
    expect(raw).not.toContain('?');
    const text = flat(raw);
    for (const expected of [
      ORGANISATION,
      `Report ID: ${report.reportId}`,
      'Requested by: Grace Hopper (QA)',
      'Period: All time',
      'Scope: FDA 21 CFR Part 11; every requirement and finding; evidence included',
      'Coverage: 21 CFR Part 11',
      `${requirementId} — ${TITLE}`,
      'Audit trail entries are time-stamped and keep the previous value — Prüfpfad für jede Änderung.',
      '1. Every change writes an audit trail entry with user and time',
      '2. Ältere Werte bleiben lesbar',
      'Clauses: 11.10(e)',
      `${findingId} — Zeitzone fehlt im Export`,
      'Description: Exported entries show local time without offset.',
      '• SOP-12 rev 3 «signed» ✓',
      'Resolution: Offsets added to every exported timestamp (UTC±hh:mm).',
      'Traceability matrix: FDA 21 CFR Part 11',
      'GAP: no requirement',
      'Approval',
      'Prepared by',
      'Electronic signatures (21 CFR 11.50, 11.70) are recorded with the report, not written into this file',
    ]) {
      expect(text).toContain(expected);
    }
    // Identifiers are never broken across lines: each id appears whole on one line.
    for (const id of [report.reportId, requirementId, findingId]) expect(raw.split('\n').some((line) => line.includes(id))).toBe(true);
  });

  test("the file's SHA-256 is published in the metadata; verify accepts the file and rejects it after one byte changes", async () => {
    expect(report.sha256).toBe(sha256(original));
    expect(report.recordSha256).toBe(report.sha256);
    expect(report.requestedBy).toEqual({ keyId: expect.stringMatching(/^key_/), name: 'Grace Hopper (QA)' });

    const ok = await verify(report.reportId, original);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      reportId: report.reportId,
      valid: true,
      sha256: report.sha256,
      size: original.length,
      matches: 'original',
      current: true,
      signatures: [],
    });

    const tampered = Buffer.from(original);
    const at = Math.floor(tampered.length / 2);
    tampered[at] = tampered[at] ^ 0x01;
    const bad = await verify(report.reportId, tampered);
    expect(bad.status).toBe(200);
    expect(bad.body).toMatchObject({ valid: false, matches: null, expectedSha256: report.sha256, sha256: sha256(tampered) });
    expect(bad.body.message).toMatch(/does not match/);

    // Any content type is taken as raw bytes; an empty body is simply not the file.
    expect((await verify(report.reportId, original, 'application/octet-stream')).body.valid).toBe(true);
    expect((await verify(report.reportId, Buffer.alloc(0))).body.valid).toBe(false);
    expect((await verify('rpt_missing', original)).status).toBe(404);
    expect((await verify(report.reportId, original, 'application/pdf', await issueKey(gw, ['read:requirements']))).status).toBe(403);
  });

  test('a JSON report is verified from its raw bytes too, not parsed', async () => {
    const created = await call('/v1/compliance/reports', { method: 'POST', json: { framework: 'fda21cfr11', format: 'json' } });
    const done = await completed(created.body.reportId);
    const bytes = await download(done.downloadUrl);
    expect(JSON.parse(bytes.toString('utf8')).organisation).toBe(ORGANISATION);
    expect((await verify(done.reportId, bytes, 'application/json')).body).toMatchObject({ valid: true, matches: 'original' });
    const reformatted = Buffer.from(JSON.stringify(JSON.parse(bytes.toString('utf8'))));
    expect((await verify(done.reportId, reformatted, 'application/json')).body.valid).toBe(false);
  });
});

describe('electronic signatures (21 CFR 11.50, 11.70)', () => {
  let signed: any;

  test('a signer approves with a stated meaning; the signature binds the SHA-256 of the stored file, which is not rendered again (issue 37)', async () => {
    const signer = await issueKey(gw, ['sign:reports', 'read:compliance'], { name: 'Dr. Ada Lovelace' });
    const res = await call(`/v1/compliance/reports/${report.reportId}/signatures`, { method: 'POST', auth: signer, json: { meaning: 'approved' } });
    expect(res.status).toBe(201);
    signed = res.body;
    expect(signed.signature).toMatchObject({
      signerName: 'Dr. Ada Lovelace',
      keyId: expect.stringMatching(/^key_/),
      meaning: 'approved',
      signedAt: expect.any(String),
      recordSha256: sha256(original),
    });
    const s = signed.signature;
    expect(s.signatureHash).toBe(
      sha256(Buffer.from(JSON.stringify(['report-signature/v1', report.reportId, s.recordSha256, s.keyId, s.signerName, s.meaning, s.signedAt]))),
    );
    // No new rendition: the file served, its published hash and the record hash are those of the original.
    expect(signed.sha256).toBe(report.sha256);
    expect(signed.recordSha256).toBe(report.sha256);
    expect(signed.signatures).toEqual([s]);
    const file = await download(report.downloadUrl);
    expect(file.equals(original)).toBe(true);

    // Verify names the signatures bound to the posted file; a changed byte has none.
    const ok = await verify(report.reportId, file);
    expect(ok.body).toMatchObject({ valid: true, matches: 'original', current: true, signatures: [s] });
    expect(ok.body.message).toMatch(/1 signature is bound to it/);
    const tampered = Buffer.from(file);
    tampered[100] ^= 0x01;
    expect((await verify(report.reportId, tampered)).body).toMatchObject({ valid: false, signatures: [] });
  });

  test('a stored file that no longer hashes to its published SHA-256 is not signed', async () => {
    const created = await call('/v1/compliance/reports', { method: 'POST', json: { framework: 'fda21cfr11', format: 'json' } });
    const done = await completed(created.body.reportId);
    await gw.db.orm.em
      .fork()
      .getConnection()
      .execute(`update reports set content = ? where id = ?`, [Buffer.from('{"changed":true}'), done.reportId]);
    const res = await call(`/v1/compliance/reports/${done.reportId}/signatures`, { method: 'POST', json: { meaning: 'approved' } });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/does not match its published SHA-256/);
    expect((await call(`/v1/compliance/reports/${done.reportId}`)).body.signatures).toEqual([]);
  });

  test('a second meaning by another signer is added; the same key and meaning twice is refused', async () => {
    const reviewer = await issueKey(gw, ['sign:reports'], { name: 'Marie Curie' });
    const reviewed = await call(`/v1/compliance/reports/${report.reportId}/signatures`, { method: 'POST', auth: reviewer, json: { meaning: 'reviewed' } });
    expect(reviewed.status).toBe(201);
    expect(reviewed.body.signatures.map((x: any) => [x.signerName, x.meaning])).toEqual([
      ['Dr. Ada Lovelace', 'approved'],
      ['Marie Curie', 'reviewed'],
    ]);
    const again = await call(`/v1/compliance/reports/${report.reportId}/signatures`, { method: 'POST', auth: reviewer, json: { meaning: 'reviewed' } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
    expect(reviewed.body.signatures.every((x: any) => x.recordSha256 === report.sha256)).toBe(true);
    expect((await download(report.downloadUrl)).equals(original)).toBe(true);
    expect((await verify(report.reportId, original)).body.signatures.map((x: any) => x.signerName)).toEqual(['Dr. Ada Lovelace', 'Marie Curie']);
  });

  test('bad meanings, missing permission and unknown reports are refused in the envelope', async () => {
    const bad = await call(`/v1/compliance/reports/${report.reportId}/signatures`, { method: 'POST', json: { meaning: 'liked' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    expect((await call(`/v1/compliance/reports/${report.reportId}/signatures`, { method: 'POST', json: {} })).status).toBe(400);
    expect(
      (await call(`/v1/compliance/reports/${report.reportId}/signatures`, { method: 'POST', auth: requesterKey, json: { meaning: 'approved' } })).status,
    ).toBe(403);
    expect((await call('/v1/compliance/reports/rpt_nope/signatures', { method: 'POST', json: { meaning: 'approved' } })).status).toBe(404);
  });

  test('signing is in the audit trail with before and after', async () => {
    await gw.services.auditTrail.sealNow();
    const { body } = await call(`/v1/audit-trail?entity=report&id=${report.reportId}&limit=50`);
    const actions = (body.data as any[]).map((e) => e.action).reverse();
    expect(actions).toEqual(['report.request', 'report.complete', 'report.sign', 'report.sign']);
    const firstSign = (body.data as any[]).reverse().find((e) => e.action === 'report.sign');
    expect(firstSign).toMatchObject({
      actor: 'Dr. Ada Lovelace',
      before: { sha256: report.sha256, signatures: 0 },
      after: { sha256: report.sha256, signatures: 1, signature: expect.objectContaining({ meaning: 'approved', recordSha256: report.sha256 }) },
    });
  });

  test('GraphQL and tRPC: verify a base64 file, sign, and read the hashes and signatures', async () => {
    const file = await download(report.downloadUrl);
    const q = `query($id: String!, $b: String!) { verifyComplianceReport(reportId: $id, contentBase64: $b) { valid matches current signatures { signerName meaning } } complianceReport(reportId: $id) { sha256 recordSha256 requestedBy { name } signatures { signerName meaning signedAt recordSha256 signatureHash } } }`;
    const g = await call('/graphql', { method: 'POST', json: { query: q, variables: { id: report.reportId, b: file.toString('base64') } } });
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data.verifyComplianceReport).toMatchObject({ valid: true, matches: 'ORIGINAL', current: true });
    expect(g.body.data.verifyComplianceReport.signatures).toHaveLength(2);
    expect(g.body.data.complianceReport).toMatchObject({ sha256: sha256(file), recordSha256: report.sha256, requestedBy: { name: 'Grace Hopper (QA)' } });
    expect(g.body.data.complianceReport.signatures).toHaveLength(2);
    const badB64 = await call('/graphql', { method: 'POST', json: { query: q, variables: { id: report.reportId, b: 'not base64!' } } });
    expect(badB64.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');

    const t = await call('/trpc/assurance.verifyReport', { method: 'POST', json: { reportId: report.reportId, contentBase64: original.toString('base64') } });
    expect(t.body.result.data).toMatchObject({ valid: true, matches: 'original' });
    const admin = await call('/graphql', {
      method: 'POST',
      json: {
        query: `mutation($id: String!) { signComplianceReport(reportId: $id, meaning: APPROVED) { signatures { signerName meaning } } }`,
        variables: { id: report.reportId },
      },
    });
    expect(admin.body.errors).toBeUndefined();
    expect(admin.body.data.signComplianceReport.signatures.map((x: any) => x.meaning)).toEqual(['APPROVED', 'REVIEWED', 'APPROVED']);
  });
});
