/**
 * GraphQL reads what is selected (issue #36, part 2): the requirements and findings resolvers, and
 * the findings DataLoader under a requirement, read only the columns the selection needs; the JSONB
 * detail columns only when one of their fields is asked for. The SQL each query issued is read as it
 * was stated (statement-tap.ts). On the embedded database, and on PostgreSQL with TEST_DATABASE_URL.
 */
import { listenToStatements } from '../../domain/database/statement-tap';
import { startGateway, type TestGateway } from '../helpers/gateway';

let gw: TestGateway;
let requirementId: string;

beforeAll(async () => {
  gw = await startGateway();
  const res = await gw.request('/v1/requirements', {
    method: 'POST',
    json: {
      title: 'Personal data is encrypted at rest',
      framework: 'gdpr',
      priority: 'high',
      acceptanceCriteria: ['AES-256 at rest'],
      technicalContext: { scope: 'storage', relatedComponents: ['db'] },
    },
  });
  expect(res.status).toBe(201);
  requirementId = ((await res.json()) as { id: string }).id;
  const finding = await gw.request('/v1/audits/findings', {
    method: 'POST',
    json: { title: 'Backups unencrypted', framework: 'gdpr', severity: 'high', requirementId, evidence: ['backup-config.txt'] },
  });
  expect(finding.status).toBe(201);
});
afterAll(async () => {
  await gw?.close();
});

/** The answer of a GraphQL query, and the statements it sent that read `table`. */
async function query(text: string, table: string, only: RegExp = /./): Promise<{ data: any; reads: string[] }> {
  const reads: string[] = [];
  const stop = listenToStatements((tap, sql) => {
    if (tap === 'stated' && new RegExp(`from "?${table}"?\\b`).test(sql) && only.test(sql)) reads.push(sql);
  });
  try {
    const res = await gw.request('/graphql', { method: 'POST', json: { query: text } });
    const body = (await res.json()) as { data: any; errors?: unknown };
    expect(body.errors).toBeUndefined();
    return { data: body.data, reads };
  } finally {
    stop();
  }
}

const DETAIL_COLUMNS = /acceptance_criteria|technical_context|implementation|validation/;

test('a requirements page without detail fields reads no JSONB detail column', async () => {
  const { data, reads } = await query(`{ requirements(limit: 5) { data { id title status } pagination { total } } }`, 'requirements');
  expect(data.requirements.data).toEqual([{ id: requirementId, title: 'Personal data is encrypted at rest', status: 'PENDING' }]);
  expect(reads.length).toBeGreaterThan(0);
  for (const sql of reads) {
    expect(sql).not.toMatch(DETAIL_COLUMNS);
    expect(sql).not.toMatch(/\bdescription\b|updated_at|\bcategory\b/);
  }
});

test('detail is read when asked for, through fragments too', async () => {
  const { data, reads } = await query(
    `query Q { requirements(limit: 4) { data { ...R } } } fragment R on Requirement { id ... on Requirement { technicalContext { scope } acceptanceCriteria } }`,
    'requirements',
  );
  expect(data.requirements.data).toEqual([{ id: requirementId, technicalContext: { scope: 'storage' }, acceptanceCriteria: ['AES-256 at rest'] }]);
  expect(reads.some((sql) => /technical_context/.test(sql) && /acceptance_criteria/.test(sql))).toBe(true);
  expect(reads.some((sql) => /implementation|validation/.test(sql))).toBe(false);
});

test('nested findings read only their selected columns, evidence only when asked for', async () => {
  const plain = await query(`{ requirements(limit: 3) { data { id findings { id title severity } } } }`, 'audit_findings');
  expect(plain.data.requirements.data[0].findings).toEqual([{ id: expect.any(String), title: 'Backups unencrypted', severity: 'HIGH' }]);
  expect(plain.reads).toHaveLength(1);
  expect(plain.reads[0]).not.toMatch(/evidence|resolution|due_date/);
  const withEvidence = await query(`{ requirements(limit: 2) { data { id findings { id evidence } } } }`, 'audit_findings');
  expect(withEvidence.data.requirements.data[0].findings).toEqual([{ id: expect.any(String), evidence: ['backup-config.txt'] }]);
  expect(withEvidence.reads.some((sql) => /evidence/.test(sql))).toBe(true);
});

test('aliased findings with different selections each get their own fields', async () => {
  const { data } = await query(`{ requirements(limit: 3) { data { id a: findings { id } b: findings { title severity } } } }`, 'audit_findings');
  const [first] = data.requirements.data.filter((r: any) => r.a.length);
  expect(first.a).toEqual([{ id: expect.any(String) }]);
  expect(first.b).toEqual([{ title: 'Backups unencrypted', severity: 'HIGH' }]);
});

test('the findings list reads only the selected columns', async () => {
  const { data, reads } = await query(`{ findings(limit: 5) { data { id title } pagination { total } } }`, 'audit_findings');
  expect(data.findings).toEqual({ data: [{ id: expect.any(String), title: 'Backups unencrypted' }], pagination: { total: 1 } });
  expect(reads.length).toBeGreaterThan(0);
  for (const sql of reads) expect(sql).not.toMatch(/evidence|resolution|description/);
});

test("a report's signatures are read only when selected; its renditions never for a view", async () => {
  const res = await gw.request('/v1/dashboard/reports', { method: 'POST', json: { type: 'summary', format: 'json' } });
  expect(res.status).toBeLessThan(300);
  const { reportId } = (await res.json()) as { reportId: string };
  // The report's job reads it meanwhile (by id alone); the views read it by id and origin.
  const byView = /"origin" = /;
  const plain = await query(`{ dashboardReport(reportId: "${reportId}") { reportId type } dashboardReports(limit: 3) { reportId } }`, 'reports', byView);
  expect(plain.data.dashboardReport).toEqual({ reportId, type: 'SUMMARY' });
  expect(plain.reads.length).toBeGreaterThan(0);
  for (const sql of plain.reads) expect(sql).not.toMatch(/signatures|renditions|content/);
  const signed = await query(`{ dashboardReport(reportId: "${reportId}") { reportId signatures { keyId } } }`, 'reports', byView);
  expect(signed.data.dashboardReport).toEqual({ reportId, signatures: [] });
  expect(signed.reads.some((sql) => /signatures/.test(sql))).toBe(true);
  expect(signed.reads.some((sql) => /renditions/.test(sql))).toBe(false);
});
