import { startGateway, type TestGateway } from '../helpers/gateway';

/**
 * Issue 11: reports are owned and show only what their requester may read. A key that gets 403 on
 * /v1/audits/findings cannot get findings or evidence through a report, and another key can neither
 * list, read nor download a report it did not request; on REST, GraphQL and tRPC.
 */
let gw: TestGateway;
let findingId: string;

beforeAll(async () => {
  gw = await startGateway();
  const req: any = await (
    await gw.request('/v1/requirements', { method: 'POST', json: { title: 'Encrypt exports', framework: 'soc2', priority: 'high' } })
  ).json();
  const finding = await gw.request('/v1/audits/findings', {
    method: 'POST',
    json: {
      title: 'Unencrypted export found',
      framework: 'soc2',
      severity: 'critical',
      requirementId: req.id,
      evidence: ['bucket listing with customer names'],
    },
  });
  expect(finding.status).toBe(201);
  findingId = ((await finding.json()) as any).id;
}, 180_000);
afterAll(async () => {
  await gw?.close();
});

async function mint(name: string, permissions: string[]) {
  const res = await gw.request('/v1/auth/api-keys', { method: 'POST', json: { name, permissions } });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; key: string };
}
const gql = async (auth: string, query: string, variables: Record<string, unknown> = {}) =>
  (await (await gw.request('/graphql', { method: 'POST', auth, json: { query, variables } })).json()) as any;
const trpcMutation = async (auth: string, path: string, input: unknown) =>
  (await (await gw.request(`/trpc/${path}`, { method: 'POST', auth, json: input })).json()) as any;
const trpcQuery = async (auth: string, path: string, input?: unknown) =>
  (await (await gw.request(`/trpc/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`, { auth })).json()) as any;

async function completed(path: string, auth?: string): Promise<any> {
  const until = Date.now() + 20_000;
  for (;;) {
    const body: any = await (await gw.request(path, { auth })).json();
    if (body.status === 'completed') return body;
    if (body.status !== 'generating' || Date.now() > until) throw new Error(`report did not complete: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a key without read:audits gets no findings or evidence through a report', () => {
  let writer: { id: string; key: string };
  let dashWriter: { id: string; key: string };
  beforeAll(async () => {
    writer = await mint('compliance writer', ['write:compliance', 'read:compliance']);
    dashWriter = await mint('dashboard writer', ['write:dashboard', 'read:dashboard']);
    expect((await gw.request('/v1/audits/findings', { auth: writer.key })).status).toBe(403);
  });

  test('includeEvidence and audit reports are refused with 403 on REST, GraphQL and tRPC', async () => {
    const rest = await gw.request('/v1/compliance/reports', {
      method: 'POST',
      auth: writer.key,
      json: { framework: 'soc2', format: 'csv', includeEvidence: true },
    });
    expect(rest.status).toBe(403);
    const refused = ((await rest.json()) as any).error;
    expect(refused).toMatchObject({ code: 'AUTHORIZATION_ERROR', details: [{ field: 'includeEvidence', message: 'needs read:audits' }] });
    expect(refused.message).toMatch(/read:audits/);
    const audit = await gw.request('/v1/dashboard/reports', { method: 'POST', auth: dashWriter.key, json: { type: 'audit', format: 'csv' } });
    expect(audit.status).toBe(403);

    const g1 = await gql(writer.key, 'mutation($i: ComplianceReportInput!) { requestComplianceReport(input: $i) { reportId } }', {
      i: { framework: 'SOC2', format: 'CSV', includeEvidence: true },
    });
    expect(g1.errors[0].extensions.code).toBe('AUTHORIZATION_ERROR');
    const g2 = await gql(dashWriter.key, 'mutation($i: DashboardReportInput!) { requestDashboardReport(input: $i) { reportId } }', {
      i: { type: 'AUDIT', format: 'CSV' },
    });
    expect(g2.errors[0].extensions.code).toBe('AUTHORIZATION_ERROR');
    expect((await trpcMutation(writer.key, 'live.requestComplianceReport', { framework: 'soc2', format: 'csv', includeEvidence: true })).error.data.code).toBe(
      'FORBIDDEN',
    );
    expect((await trpcMutation(dashWriter.key, 'live.requestDashboardReport', { type: 'audit', format: 'csv' })).error.data.code).toBe('FORBIDDEN');
  });

  test.each(['csv', 'json', 'pdf'] as const)('a compliance report (%s) and a compliance-type dashboard report list no findings', async (format) => {
    const created: any = await (await gw.request('/v1/compliance/reports', { method: 'POST', auth: writer.key, json: { framework: 'soc2', format } })).json();
    const done = await completed(`/v1/compliance/reports/${created.reportId}`, writer.key);
    const file = Buffer.from(await (await gw.request(done.downloadUrl, { auth: writer.key })).arrayBuffer()).toString('latin1');
    expect(file).not.toContain(findingId);
    expect(file).not.toContain('Unencrypted export found');
    expect(file).not.toContain('customer names');
    if (format === 'json') {
      const doc = JSON.parse(file);
      expect(doc.findings).toEqual([]);
      expect(doc.scope.basis).toMatch(/findings withheld/);
      expect(doc.traceability.findingsIncluded).toBe(false);
    }

    const dash: any = await (await gw.request('/v1/dashboard/reports', { method: 'POST', auth: dashWriter.key, json: { type: 'compliance', format } })).json();
    const dashDone = await completed(`/v1/dashboard/reports/${dash.reportId}`, dashWriter.key);
    const dashFile = Buffer.from(await (await gw.request(dashDone.downloadUrl, { auth: dashWriter.key })).arrayBuffer()).toString('latin1');
    expect(dashFile).not.toContain(findingId);
    expect(dashFile).not.toContain('customer names');
  });

  test('the same request by a key with read:audits does include them (the control)', async () => {
    const auditor = await mint('auditor', ['write:compliance', 'read:compliance', 'read:audits']);
    const created: any = await (
      await gw.request('/v1/compliance/reports', { method: 'POST', auth: auditor.key, json: { framework: 'soc2', format: 'json', includeEvidence: true } })
    ).json();
    const done = await completed(`/v1/compliance/reports/${created.reportId}`, auditor.key);
    const doc: any = await (await gw.request(done.downloadUrl, { auth: auditor.key })).json();
    expect(doc.findings.map((f: any) => f.id)).toContain(findingId);
    expect(doc.evidence).toEqual([{ findingId, items: ['bucket listing with customer names'] }]);
  });
});

describe('reports are owned: only the requester and the admin list, read and download them', () => {
  let alice: { id: string; key: string };
  let bob: { id: string; key: string };
  let compliance: any;
  let dashboard: any;
  beforeAll(async () => {
    const perms = ['write:compliance', 'read:compliance', 'write:dashboard', 'read:dashboard'];
    alice = await mint('alice', perms);
    bob = await mint('bob', perms);
    const c: any = await (await gw.request('/v1/compliance/reports', { method: 'POST', auth: alice.key, json: { framework: 'soc2', format: 'csv' } })).json();
    compliance = await completed(`/v1/compliance/reports/${c.reportId}`, alice.key);
    const d: any = await (await gw.request('/v1/dashboard/reports', { method: 'POST', auth: alice.key, json: { type: 'summary', format: 'csv' } })).json();
    dashboard = await completed(`/v1/dashboard/reports/${d.reportId}`, alice.key);
    await gw.request('/v1/dashboard/reports', { method: 'POST', auth: bob.key, json: { type: 'summary', format: 'json' } });
  });

  test('REST: another key gets 404 for status and download, and does not see it listed', async () => {
    for (const path of [
      `/v1/compliance/reports/${compliance.reportId}`,
      compliance.downloadUrl,
      `/v1/dashboard/reports/${dashboard.reportId}`,
      dashboard.downloadUrl,
    ]) {
      const res = await gw.request(path, { auth: bob.key });
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect((await gw.request(path, { auth: alice.key })).status).toBe(200);
      expect((await gw.request(path)).status).toBe(200); // the admin
    }
    for (const path of ['/api/dashboard/reports', '/v1/dashboard/reports']) {
      const bobs: any = await (await gw.request(path, { auth: bob.key })).json();
      expect(bobs.data.length).toBe(1);
      expect(bobs.data.every((r: any) => r.requestedBy.keyId === bob.id)).toBe(true);
      const alices: any = await (await gw.request(path, { auth: alice.key })).json();
      expect(alices.data.map((r: any) => r.reportId)).toEqual([dashboard.reportId]);
      const all: any = await (await gw.request(path)).json();
      expect(all.data.map((r: any) => r.requestedBy.keyId)).toEqual(expect.arrayContaining([alice.id, bob.id]));
    }
  });

  test('GraphQL: another key gets NOT_FOUND and an own-only listing', async () => {
    const fields = 'reportId requestedBy { keyId }';
    const theirs = await gql(bob.key, `{ complianceReport(reportId: "${compliance.reportId}") { ${fields} } }`);
    expect(theirs.errors[0].extensions.code).toBe('NOT_FOUND');
    const dash = await gql(bob.key, `{ dashboardReport(reportId: "${dashboard.reportId}") { ${fields} } }`);
    expect(dash.errors[0].extensions.code).toBe('NOT_FOUND');
    const listed = await gql(bob.key, `{ dashboardReports { ${fields} } }`);
    expect(listed.data.dashboardReports.map((r: any) => r.requestedBy.keyId)).toEqual([bob.id]);
    const own = await gql(alice.key, `{ complianceReport(reportId: "${compliance.reportId}") { ${fields} } }`);
    expect(own.data.complianceReport.reportId).toBe(compliance.reportId);
  });

  test('tRPC: another key gets NOT_FOUND and an own-only listing', async () => {
    expect((await trpcQuery(bob.key, 'live.complianceReport', { reportId: compliance.reportId })).error.data.code).toBe('NOT_FOUND');
    expect((await trpcQuery(bob.key, 'live.dashboardReport', { reportId: dashboard.reportId })).error.data.code).toBe('NOT_FOUND');
    const listed = await trpcQuery(bob.key, 'live.dashboardReports', {});
    expect(listed.result.data.data.map((r: any) => r.requestedBy.keyId)).toEqual([bob.id]);
    expect((await trpcQuery(alice.key, 'live.dashboardReport', { reportId: dashboard.reportId })).result.data.reportId).toBe(dashboard.reportId);
  });
});

test('a requester revoked before its report is generated gets no report: it fails, the reason in the audit trail', async () => {
  const k = await mint('revoked before generation', ['write:compliance', 'read:compliance', 'read:audits']);
  await gw.services.jobs.stop();
  let reportId = '';
  try {
    const res = await gw.request('/v1/compliance/reports', { method: 'POST', auth: k.key, json: { framework: 'soc2', format: 'json', includeEvidence: true } });
    expect(res.status).toBe(202);
    reportId = ((await res.json()) as any).reportId;
    expect((await gw.request(`/v1/auth/api-keys/${k.id}`, { method: 'DELETE' })).status).toBe(200);
  } finally {
    gw.services.jobs.start();
    gw.services.jobs.kick();
  }
  const until = Date.now() + 20_000;
  let status = 'generating';
  while (status === 'generating' && Date.now() < until) {
    status = ((await (await gw.request(`/v1/compliance/reports/${reportId}`)).json()) as any).status;
    if (status === 'generating') await new Promise((r) => setTimeout(r, 100));
  }
  expect(status).toBe('failed');
  expect((await gw.request(`/v1/compliance/reports/${reportId}/download`)).status).toBe(409);
  await gw.services.auditTrail.sealNow();
  const trail: any = await (await gw.request(`/v1/audit-trail?entity=report&id=${reportId}`)).json();
  expect(trail.data.find((e: any) => e.action === 'report.fail').after.error).toBe('the requesting key is no longer valid (revoked)');
});
