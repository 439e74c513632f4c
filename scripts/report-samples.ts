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
  const config = parseConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ADMIN_API_KEY: ADMIN,
    LOG_LEVEL: 'silent',
    ORGANISATION_NAME: 'Müller & Søn Medizintechnik GmbH',
  } as NodeJS.ProcessEnv);
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
    const requester = (
      await json('/v1/auth/api-keys', {
        method: 'POST',
        json: { name: 'Grace Hopper (QA)', permissions: ['write:compliance', 'read:compliance', 'read:audits', 'write:dashboard', 'read:dashboard'] },
      })
    ).key;
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
      json: {
        title: 'Electronic signature manifestation',
        description: 'Signed records show the printed name, date and time, and meaning of each signature.',
        framework: 'fda21cfr11',
        priority: 'high',
        acceptanceCriteria: ['The rendered report shows name, time and meaning'],
      },
    });
    await call(`/v1/requirements/${r2.id}`, { method: 'PUT', json: { status: 'in-progress' } });
    const f1 = await json('/v1/audits/findings', {
      method: 'POST',
      json: {
        title: 'Export lacks time-zone offsets',
        description: 'Exported trail entries show local time only.',
        framework: 'fda21cfr11',
        severity: 'medium',
        requirementId: r1.id,
        evidence: ['SOP-12 rev 3 «signed» ✓'],
      },
    });
    await call(`/v1/audits/findings/${f1.id}`, { method: 'PATCH', json: { status: 'resolved', resolution: 'Offsets added to every exported timestamp.' } });
    await json('/v1/audits/findings', {
      method: 'POST',
      json: {
        title: 'Signatures not linked to records',
        description: 'A signature could be copied to another record.',
        framework: 'fda21cfr11',
        severity: 'high',
        requirementId: r2.id,
        evidence: ['Review 2026-11-20'],
      },
    });

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

    // The compliance report (signatures are recorded with it and bound to this file; the file stays as it is).
    const compliance = await json('/v1/compliance/reports', {
      method: 'POST',
      key: requester,
      json: { framework: 'fda21cfr11', format: 'pdf', includeEvidence: true, title: '✓ 数据 «sofort» — Part 11 evidence pack' },
    });
    const done = await waitDone(`/v1/compliance/reports/${compliance.reportId}`, requester);
    toPng(Buffer.from(await (await call(done.downloadUrl, { key: requester })).arrayBuffer()), 'compliance');

    // Right-to-left records (issue 35): Arabic and Hebrew beside Latin, CJK and Greek, in a GDPR report.
    const ar = await json('/v1/requirements', {
      method: 'POST',
      json: {
        title: 'حماية البيانات الشخصية في النظام الإلكتروني',
        description: 'يحتفظ النظام بسجل تدقيق لكل تغيير — audit trail of every change, 数据 and Ωμέγα alike.',
        framework: 'gdpr',
        priority: 'high',
        acceptanceCriteria: ['تسجيل كل عملية وصول إلى البيانات', 'כל גישה לנתונים נרשמת ביומן'],
      },
    });
    await json('/v1/audits/findings', {
      method: 'POST',
      json: {
        title: 'חסרה הסכמה מתועדת',
        description: 'لا توجد موافقة موثقة لمعالجة البيانات.',
        framework: 'gdpr',
        severity: 'medium',
        requirementId: ar.id,
        evidence: ['سجل التدقيق 2026'],
      },
    });
    const rtl = await json('/v1/compliance/reports', {
      method: 'POST',
      key: requester,
      json: { framework: 'gdpr', format: 'pdf', includeEvidence: true, title: 'تقرير التدقيق الإلكتروني — GDPR' },
    });
    const rtlDone = await waitDone(`/v1/compliance/reports/${rtl.reportId}`, requester);
    const rtlPdf = Buffer.from(await (await call(rtlDone.downloadUrl, { key: requester })).arrayBuffer());
    toPng(rtlPdf, 'compliance-arabic');
    const rtlPath = path.join(dataDir, 'rtl.pdf');
    fs.writeFileSync(rtlPath, rtlPdf);
    execFileSync('pdftoppm', ['-png', '-r', '70', '-f', '2', '-l', '2', '-singlefile', rtlPath, path.join(outDir, 'compliance-arabic-page2')]);
    console.log('wrote docs/reports/compliance-arabic-page2.png');

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
