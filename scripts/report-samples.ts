/**
 * Renders the first page of each report type to docs/reports/*.png, from a gateway started on a
 * throw-away embedded database with a small sample of records (`npm run build && node
 * dist/scripts/report-samples.js`; needs poppler's pdftoppm).
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../gateway/config';
import { createGateway } from '../gateway/server';
import { createLogger } from '../gateway/logger';

const ADMIN = 'report-samples-admin-key-0123456789';

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'report-samples-'));
  const config = parseConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN, LOG_LEVEL: 'silent', ORGANISATION_NAME: 'Müller & Søn Medizintechnik GmbH' } as NodeJS.ProcessEnv);
  const gw = await createGateway(config, { logger: createLogger('silent') });
  const call = async (p: string, init: { method?: string; json?: unknown; key?: string } = {}) => {
    const res = await fetch(gw.url + p, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${init.key ?? ADMIN}`, ...(init.json ? { 'content-type': 'application/json' } : {}) },
      body: init.json ? JSON.stringify(init.json) : undefined,
    });
    if (res.status >= 400) throw new Error(`${p}: ${res.status} ${await res.text()}`);
    return res;
  };
  const json = async (p: string, init: Parameters<typeof call>[1] = {}) => (await call(p, init)).json() as Promise<any>;
  try {
    const requester = (await json('/v1/auth/api-keys', { method: 'POST', json: { name: 'Grace Hopper (QA)', permissions: ['write:compliance', 'read:compliance', 'write:dashboard', 'read:dashboard'] } })).key;
    const signer = (await json('/v1/auth/api-keys', { method: 'POST', json: { name: 'Dr. Ada Lovelace', permissions: ['sign:reports', 'read:compliance'] } })).key;
    const r1 = await json('/v1/requirements', {
      method: 'POST',
      json: {
        title: '✓ 数据 «sofort»: audit trail of every record change',
        description: 'A secure, time-stamped audit trail records who created, changed or deleted a record and keeps the previous value.',
        framework: 'fda21cfr11',
        priority: 'critical',
        acceptanceCriteria: ['Every create, update and delete writes an audit entry with user and timestamp', 'Previous values stay readable'],
        implementation: { testFile: 'tests/e2e/audit-trail.test.ts', relatedIssues: ['#15'] },
      },
    });
    await call(`/v1/requirements/${r1.id}`, { method: 'PUT', json: { status: 'completed' } });
    await call(`/v1/requirements/${r1.id}/validate`, { method: 'POST' });
    const r2 = await json('/v1/requirements', {
      method: 'POST',
      json: { title: 'Electronic signature manifestation', description: 'Signed records show the printed name, date and time, and meaning of each signature.', framework: 'fda21cfr11', priority: 'high', acceptanceCriteria: ['The rendered report shows name, time and meaning'] },
    });
    await call(`/v1/requirements/${r2.id}`, { method: 'PUT', json: { status: 'in-progress' } });
    const f1 = await json('/v1/audits/findings', {
      method: 'POST',
      json: { title: 'Export lacks time-zone offsets', description: 'Exported trail entries show local time only.', framework: 'fda21cfr11', severity: 'medium', requirementId: r1.id, evidence: ['SOP-12 rev 3 «signed» ✓'] },
    });
    await call(`/v1/audits/findings/${f1.id}`, { method: 'PATCH', json: { status: 'resolved', resolution: 'Offsets added to every exported timestamp.' } });
    await json('/v1/audits/findings', { method: 'POST', json: { title: 'Signatures not linked to records', description: 'A signature could be copied to another record.', framework: 'fda21cfr11', severity: 'high', requirementId: r2.id, evidence: ['Review 2026-11-20'] } });

    const waitDone = async (url: string, key: string) => {
      for (;;) {
        const r = await json(url, { key });
        if (r.status === 'completed') return r;
        if (r.status === 'failed') throw new Error(`${url} failed`);
        await new Promise((res) => setTimeout(res, 200));
      }
    };
    const outDir = path.resolve(__dirname, '../../docs/reports');
    fs.mkdirSync(outDir, { recursive: true });
    const toPng = (pdf: Buffer, name: string) => {
      const pdfPath = path.join(dataDir, `${name}.pdf`);
      fs.writeFileSync(pdfPath, pdf);
      execFileSync('pdftoppm', ['-png', '-r', '70', '-f', '1', '-l', '1', '-singlefile', pdfPath, path.join(outDir, name)]);
      console.log(`wrote docs/reports/${name}.png`);
    };

    // The compliance report, then signed (its approval block, on the last page).
    const compliance = await json('/v1/compliance/reports', { method: 'POST', key: requester, json: { framework: 'fda21cfr11', format: 'pdf', includeEvidence: true, title: '✓ 数据 «sofort» — Part 11 evidence pack' } });
    const done = await waitDone(`/v1/compliance/reports/${compliance.reportId}`, requester);
    toPng(Buffer.from(await (await call(done.downloadUrl, { key: requester })).arrayBuffer()), 'compliance');
    await json(`/v1/compliance/reports/${compliance.reportId}/signatures`, { method: 'POST', key: signer, json: { meaning: 'approved' } });
    const signedPdf = Buffer.from(await (await call(done.downloadUrl, { key: requester })).arrayBuffer());
    const signedPath = path.join(dataDir, 'signed.pdf');
    fs.writeFileSync(signedPath, signedPdf);
    const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [signedPath]).toString())![1]);
    execFileSync('pdftoppm', ['-png', '-r', '70', '-f', String(pages), '-l', String(pages), '-singlefile', signedPath, path.join(outDir, 'compliance-signed-approval')]);
    console.log('wrote docs/reports/compliance-signed-approval.png');

    for (const type of ['requirements', 'audit', 'summary'] as const) {
      const r = await json('/v1/dashboard/reports', { method: 'POST', key: requester, json: { type, framework: 'fda21cfr11', format: 'pdf' } });
      const d = await waitDone(`/v1/dashboard/reports/${r.reportId}`, requester);
      toPng(Buffer.from(await (await call(d.downloadUrl, { key: requester })).arrayBuffer()), type);
    }
  } finally {
    await gw.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
