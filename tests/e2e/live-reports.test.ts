import { parseCsv } from '../helpers/csv';
import { expectScoreByModel } from '../helpers/scoring';
import { clock, clockStartingAt } from '../../domain/clock';
import { Requirement } from '../../domain/compliance/requirements/requirement.entity';
import { issueKey, startGateway, type TestGateway } from '../helpers/gateway';

let gw: TestGateway;
let oldReqId: string;
let newReqId: string;
let otherFrameworkReqId: string;

async function createRequirement(body: Record<string, unknown>): Promise<string> {
  const res = await gw.request('/v1/requirements', { method: 'POST', json: body });
  expect(res.status).toBe(201);
  return ((await res.json()) as any).id;
}

beforeAll(async () => {
  gw = await startGateway();
  oldReqId = await createRequirement({ title: 'Old audit trail requirement', framework: 'gdpr', priority: 'high' });
  newReqId = await createRequirement({ title: 'Recent, data subject access, requirement', framework: 'gdpr', priority: 'medium' });
  otherFrameworkReqId = await createRequirement({ title: 'SOC 2 access review', framework: 'soc2', priority: 'low' });
  const res = await gw.request(`/v1/requirements/${newReqId}`, { method: 'PUT', json: { status: 'completed' } });
  expect(res.status).toBe(200);
  // The old requirement was created long before the report's range.
  const em = gw.db.orm.em.fork();
  await em.nativeUpdate(Requirement, { id: oldReqId }, { createdAt: new Date('2020-01-15T00:00:00Z') });
  const finding = await gw.request('/v1/audits/findings', {
    method: 'POST',
    json: { title: 'Missing DPIA', description: 'No DPIA on file', framework: 'gdpr', severity: 'high', requirementId: newReqId, evidence: ['audit-2026.pdf'] },
  });
  expect(finding.status).toBe(201);
});

afterAll(async () => {
  await gw?.close();
});

async function waitCompleted(path: string, auth?: string): Promise<any> {
  const until = Date.now() + 20_000;
  for (;;) {
    const res = await gw.request(path, auth ? { auth } : {});
    expect(res.status).toBe(200);
    const body: any = await res.json();
    if (body.status === 'completed') return body;
    expect(body.status).toBe('generating');
    if (Date.now() > until) throw new Error(`report did not complete: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const range = () => ({ start: new Date(Date.now() - 86_400_000).toISOString(), end: new Date(Date.now() + 60_000).toISOString() });

describe('compliance reports', () => {
  test('json: request → 202 generating → completed → downloaded and parsed; the date range excludes the old requirement', async () => {
    const res = await gw.request('/v1/compliance/reports', {
      method: 'POST',
      json: { framework: 'gdpr', format: 'json', includeEvidence: true, dateRange: range() },
    });
    expect(res.status).toBe(202);
    const created: any = await res.json();
    expect(created.reportId).toMatch(/^rpt_/);
    expect(created.status).toBe('generating');
    expect(created.downloadUrl).toBeNull();
    expect(Date.parse(created.estimatedCompletion)).toBeGreaterThan(Date.now() - 1000);

    const done = await waitCompleted(`/v1/compliance/reports/${created.reportId}`);
    expect(done.downloadUrl).toBe(`/v1/compliance/reports/${created.reportId}/download`);
    expect(Date.parse(done.generatedAt)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(done.expiresAt) - Date.parse(done.generatedAt)).toBe(24 * 3600 * 1000);

    const file = await gw.request(done.downloadUrl);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toMatch(/^application\/json/);
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${created.reportId}.json"`);
    const model: any = await file.json();
    expect(model.reportId).toBe(created.reportId);
    expect(model.framework).toBe('gdpr');
    const ids = model.requirements.map((r: any) => r.id);
    expect(ids).toContain(newReqId);
    expect(ids).not.toContain(oldReqId);
    expect(ids).not.toContain(otherFrameworkReqId);
    expect(model.findings).toHaveLength(1);
    expect(model.evidence).toEqual([{ findingId: model.findings[0].id, items: ['audit-2026.pdf'] }]);
    // Only the in-range requirement counts: one medium, completed → implementation 100; the score weighs it with
    // coverage, validation and the open finding (docs/scoring.md), as the live status does.
    expect(model.summary.frameworks).toEqual([
      expect.objectContaining({ id: 'gdpr', total: 1, completed: 1, scoring: expect.objectContaining({ implementation: 100 }) }),
    ]);
    expectScoreByModel(model.summary.frameworks[0]);
    expect(model.summary.frameworks[0].score).toBeLessThan(100);
  });

  test('csv: downloaded file parses into rows with the header and the in-range requirement only', async () => {
    const created: any = await (
      await gw.request('/v1/compliance/reports', { method: 'POST', json: { framework: 'gdpr', format: 'csv', includeEvidence: false, dateRange: range() } })
    ).json();
    const done = await waitCompleted(`/v1/compliance/reports/${created.reportId}`);
    const file = await gw.request(done.downloadUrl);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(file.headers.get('content-disposition')).toContain(`${created.reportId}.csv`);
    const rows = parseCsv(await file.text());
    const header = rows[0];
    expect(header.slice(0, 3)).toEqual(['section', 'id', 'title']);
    const idCol = header.indexOf('id');
    const sectionCol = header.indexOf('section');
    const requirementIds = rows.filter((r) => r[sectionCol] === 'requirement').map((r) => r[idCol]);
    expect(requirementIds).toEqual([newReqId]);
    expect(rows.every((r) => r.length === header.length)).toBe(true);
  });

  test('pdf: downloaded file is a PDF with page objects', async () => {
    const created: any = await (
      await gw.request('/v1/compliance/reports', { method: 'POST', json: { framework: 'gdpr', format: 'pdf', includeEvidence: true, dateRange: range() } })
    ).json();
    const done = await waitCompleted(`/v1/compliance/reports/${created.reportId}`);
    const file = await gw.request(done.downloadUrl);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${created.reportId}.pdf"`);
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = bytes.toString('latin1');
    expect(text).toMatch(/\/Type \/Page\b/);
    expect(text).toMatch(/%%EOF\s*$/);
    expect(Number(file.headers.get('content-length'))).toBe(bytes.length);
  });

  test('an expired report answers 410 GONE on download, while its status stays readable', async () => {
    const settings = (gw.services as any).reports.settings;
    const before = settings.ttlMs;
    settings.ttlMs = 60_000;
    try {
      const created: any = await (await gw.request('/v1/compliance/reports', { method: 'POST', json: { framework: 'soc2', format: 'json' } })).json();
      const done = await waitCompleted(`/v1/compliance/reports/${created.reportId}`);
      expect(Date.parse(done.expiresAt) - Date.parse(done.generatedAt)).toBe(60_000);
      expect((await gw.request(done.downloadUrl)).status).toBe(200);
      const restore = clock.use(clockStartingAt(Date.parse(done.expiresAt) + 1)); // rather than sleeping past it
      const gone = await gw.request(done.downloadUrl).finally(restore);
      expect(gone.status).toBe(410);
      const body: any = await gone.json();
      expect(body.error.code).toBe('GONE');
      expect(body.error.requestId).toEqual(expect.any(String));
      expect((await gw.request(`/v1/compliance/reports/${created.reportId}`)).status).toBe(200);
    } finally {
      settings.ttlMs = before;
    }
  });

  test('after expiresAt the status says expired with no downloadUrl, on REST, GraphQL and tRPC (issue 35)', async () => {
    const settings = (gw.services as any).reports.settings;
    const before = settings.ttlMs;
    settings.ttlMs = 60_000;
    try {
      const compliance: any = await (await gw.request('/v1/compliance/reports', { method: 'POST', json: { framework: 'soc2', format: 'json' } })).json();
      const dashboard: any = await (
        await gw.request('/v1/dashboard/reports', { method: 'POST', json: { type: 'summary', format: 'json', period: 'last_7_days' } })
      ).json();
      const done = await waitCompleted(`/v1/compliance/reports/${compliance.reportId}`);
      await waitCompleted(`/v1/dashboard/reports/${dashboard.reportId}`);
      expect(done).toMatchObject({ status: 'completed', downloadUrl: expect.any(String) });
      const json = async (path: string, init?: Parameters<TestGateway['request']>[1]) => (await (await gw.request(path, init)).json()) as any;
      const gql = (query: string) => json('/graphql', { method: 'POST', json: { query } });
      const restore = clock.use(clockStartingAt(Date.parse(done.expiresAt) + 60_000));
      try {
        for (const [path, id] of [
          [`/v1/compliance/reports/${compliance.reportId}`, compliance.reportId],
          [`/v1/dashboard/reports/${dashboard.reportId}`, dashboard.reportId],
        ]) {
          const view = await json(path);
          expect(view).toMatchObject({ reportId: id, status: 'expired', downloadUrl: null, expiresAt: expect.any(String) });
          expect((await gw.request(`${path}/download`)).status).toBe(410);
        }
        const listed = (await json('/api/dashboard/reports')).data.find((r: any) => r.reportId === dashboard.reportId);
        expect(listed).toMatchObject({ status: 'expired', downloadUrl: null });

        const g = await gql(
          `{ complianceReport(reportId: "${compliance.reportId}") { status downloadUrl } dashboardReport(reportId: "${dashboard.reportId}") { status downloadUrl } }`,
        );
        expect(g.errors).toBeUndefined();
        expect(g.data).toEqual({ complianceReport: { status: 'EXPIRED', downloadUrl: null }, dashboardReport: { status: 'EXPIRED', downloadUrl: null } });

        const t = await json(`/trpc/live.complianceReport?input=${encodeURIComponent(JSON.stringify({ reportId: compliance.reportId }))}`);
        expect(t.result.data).toMatchObject({ status: 'expired', downloadUrl: null });
        const td = await json(`/trpc/live.dashboardReport?input=${encodeURIComponent(JSON.stringify({ reportId: dashboard.reportId }))}`);
        expect(td.result.data).toMatchObject({ status: 'expired', downloadUrl: null });
      } finally {
        restore();
      }
      // Before expiresAt it is completed again (nothing was stored): the status is read against the clock.
      expect(await json(`/v1/compliance/reports/${compliance.reportId}`)).toMatchObject({ status: 'completed', downloadUrl: expect.any(String) });
    } finally {
      settings.ttlMs = before;
    }
  });

  test('bad requests: unknown framework → INVALID_FRAMEWORK with supportedFrameworks; bad format, reversed range → 400; unknown id → 404', async () => {
    const bad = await gw.request('/v1/compliance/reports', { method: 'POST', json: { framework: 'hipaa', format: 'pdf' } });
    expect(bad.status).toBe(400);
    const body: any = await bad.json();
    expect(body.error.code).toBe('INVALID_FRAMEWORK');
    expect(body.error.details.supportedFrameworks).toEqual(['iso13485', 'fda21cfr11', 'gdpr', 'soc2']);

    const fmt = await gw.request('/v1/compliance/reports', { method: 'POST', json: { framework: 'gdpr', format: 'docx' } });
    expect(fmt.status).toBe(400);
    const fmtBody: any = await fmt.json();
    expect(fmtBody.error.code).toBe('VALIDATION_ERROR');
    expect(fmtBody.error.details).toEqual([expect.objectContaining({ field: 'format' })]);

    const reversed = await gw.request('/v1/compliance/reports', {
      method: 'POST',
      json: { framework: 'gdpr', dateRange: { start: '2026-02-01', end: '2026-01-01' } },
    });
    expect(reversed.status).toBe(400);
    expect(((await reversed.json()) as any).error.details[0].field).toBe('dateRange.end');

    expect((await gw.request('/v1/compliance/reports/rpt_nope')).status).toBe(404);
    expect((await gw.request('/v1/compliance/reports/rpt_nope/download')).status).toBe(404);
  });

  test('permissions: 401 without a key, 403 without write:compliance / read:compliance', async () => {
    const reader = await issueKey(gw, ['read:compliance']);
    const writer = await issueKey(gw, ['write:compliance']);
    const owner = await issueKey(gw, ['write:compliance', 'read:compliance']);
    const body = { framework: 'gdpr', format: 'json' };
    expect((await gw.request('/v1/compliance/reports', { method: 'POST', json: body, auth: null })).status).toBe(401);
    const forbidden = await gw.request('/v1/compliance/reports', { method: 'POST', json: body, auth: reader });
    expect(forbidden.status).toBe(403);
    expect(((await forbidden.json()) as any).error.code).toBe('AUTHORIZATION_ERROR');
    expect((await gw.request('/v1/compliance/reports', { method: 'POST', json: body, auth: writer })).status).toBe(202);
    const ok = await gw.request('/v1/compliance/reports', { method: 'POST', json: body, auth: owner });
    expect(ok.status).toBe(202);
    const { reportId } = (await ok.json()) as any;
    expect((await gw.request(`/v1/compliance/reports/${reportId}`, { auth: null })).status).toBe(401);
    expect((await gw.request(`/v1/compliance/reports/${reportId}`, { auth: writer })).status).toBe(403);
    expect((await gw.request(`/v1/compliance/reports/${reportId}`, { auth: reader })).status).toBe(404); // another key's report
    const done = await waitCompleted(`/v1/compliance/reports/${reportId}`, owner);
    expect((await gw.request(done.downloadUrl, { auth: null })).status).toBe(401);
    expect((await gw.request(done.downloadUrl, { auth: writer })).status).toBe(403);
    expect((await gw.request(done.downloadUrl, { auth: reader })).status).toBe(404);
    expect((await gw.request(done.downloadUrl, { auth: owner })).status).toBe(200);
  });
});

describe('dashboard reports', () => {
  test('POST /v1/dashboard/reports → dash_rpt_ id, completes, downloads; listed by GET /api/dashboard/reports', async () => {
    const res = await gw.request('/v1/dashboard/reports', {
      method: 'POST',
      json: { type: 'requirements', framework: 'gdpr', period: 'custom', startDate: '2020-01-01', endDate: '2020-12-31', format: 'json' },
    });
    expect(res.status).toBe(202);
    const created: any = await res.json();
    expect(created.reportId).toMatch(/^dash_rpt_/);
    expect(created.status).toBe('generating');
    const done = await waitCompleted(`/v1/dashboard/reports/${created.reportId}`);
    expect(done.downloadUrl).toBe(`/v1/dashboard/reports/${created.reportId}/download`);
    const model: any = await (await gw.request(done.downloadUrl)).json();
    // 2020 holds only the old requirement.
    expect(model.requirements.map((r: any) => r.id)).toEqual([oldReqId]);
    expect(model.period.start).toBe('2020-01-01T00:00:00.000Z');
    expect(model.period.end).toBe('2020-12-31T23:59:59.999Z');

    const list = await gw.request('/api/dashboard/reports');
    expect(list.status).toBe(200);
    const listed: any = await list.json();
    expect(listed.data.map((r: any) => r.reportId)).toContain(created.reportId);
    expect(listed.data.every((r: any) => r.reportId.startsWith('dash_rpt_'))).toBe(true);
    // A compliance report id is not a dashboard report.
    const compliance: any = await (await gw.request('/v1/compliance/reports', { method: 'POST', json: { framework: 'gdpr' } })).json();
    expect((await gw.request(`/v1/dashboard/reports/${compliance.reportId}`)).status).toBe(404);
  });

  test('validation in the dashboard envelope: custom needs dates, end ≥ start, calendar dates only', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'summary', period: 'custom', startDate: '2026-01-01' }, 'endDate'],
      [{ type: 'summary', period: 'custom', startDate: '2026-02-01', endDate: '2026-01-01' }, 'endDate'],
      [{ type: 'summary', period: 'custom', startDate: '2026-02-30', endDate: '2026-03-01' }, 'startDate'],
      [{ type: 'summary', period: 'custom', startDate: '2026-01-01T00:00:00Z', endDate: '2026-03-01' }, 'startDate'],
      [{ type: 'weekly', period: 'last_7_days' }, 'type'],
      [{ type: 'summary', period: 'last_year' }, 'period'],
      [{ type: 'summary', format: 'xlsx' }, 'format'],
    ];
    for (const [json, field] of cases) {
      const res = await gw.request('/v1/dashboard/reports', { method: 'POST', json });
      expect(res.status).toBe(400);
      const body: any = await res.json();
      expect(body.error.code).toBe('VALIDATION_ERROR');
      expect(Array.isArray(body.error.details)).toBe(false);
      expect(body.error.details.fields.map((f: any) => f.field)).toContain(field);
    }
    const fw = await gw.request('/v1/dashboard/reports', { method: 'POST', json: { type: 'summary', framework: 'pci' } });
    expect(fw.status).toBe(400);
    expect(((await fw.json()) as any).error.details.supportedFrameworks).toHaveLength(4);
  });

  test('permissions: write:dashboard to request, read:dashboard to read (only your own: tests/e2e/report-ownership.test.ts)', async () => {
    const reader = await issueKey(gw, ['read:dashboard']);
    const writer = await issueKey(gw, ['write:dashboard']);
    const owner = await issueKey(gw, ['write:dashboard', 'read:dashboard']);
    const json = { type: 'summary', period: 'last_7_days', format: 'csv' };
    expect((await gw.request('/v1/dashboard/reports', { method: 'POST', json, auth: null })).status).toBe(401);
    expect((await gw.request('/v1/dashboard/reports', { method: 'POST', json, auth: reader })).status).toBe(403);
    expect((await gw.request('/v1/dashboard/reports', { method: 'POST', json, auth: writer })).status).toBe(202);
    const res = await gw.request('/v1/dashboard/reports', { method: 'POST', json, auth: owner });
    expect(res.status).toBe(202);
    const { reportId } = (await res.json()) as any;
    expect((await gw.request('/api/dashboard/reports', { auth: null })).status).toBe(401);
    expect((await gw.request('/api/dashboard/reports', { auth: writer })).status).toBe(403);
    expect((await gw.request('/api/dashboard/reports', { auth: reader })).status).toBe(200);
    expect((await gw.request(`/v1/dashboard/reports/${reportId}`, { auth: writer })).status).toBe(403);
    expect((await gw.request(`/v1/dashboard/reports/${reportId}`, { auth: reader })).status).toBe(404); // not its report
    const done = await waitCompleted(`/v1/dashboard/reports/${reportId}`, owner);
    expect((await gw.request(done.downloadUrl, { auth: writer })).status).toBe(403);
    expect((await gw.request(done.downloadUrl, { auth: reader })).status).toBe(404);
    const file = await gw.request(done.downloadUrl, { auth: owner });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  });
});

test('report generation survives in the jobs table: the job row ends done', async () => {
  const created: any = await (await gw.request('/v1/compliance/reports', { method: 'POST', json: { framework: 'iso13485', format: 'json' } })).json();
  await waitCompleted(`/v1/compliance/reports/${created.reportId}`);
  const rows = await gw.db.orm.em.fork().getConnection().execute(`select status, attempts from jobs where payload->>'reportId' = ?`, [created.reportId]);
  expect(rows).toEqual([{ status: 'done', attempts: 1 }]);
});
