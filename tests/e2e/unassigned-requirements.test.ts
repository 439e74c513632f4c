import { graphql, useGateway } from '../helpers/gateway';

/**
 * A requirement with a title alone (issue 35): the document requires only `title`, so one without a
 * framework is created on every transport, as a requirement not yet assigned to a framework. Lists,
 * scoring, traceability, reports and the dashboard show it as unassigned; it is not scored.
 */
const gw = useGateway();

const json = async (path: string, init: Parameters<typeof gw.request>[1] = {}) => {
  const res = await gw.request(path, init);
  return { status: res.status, body: (await res.json()) as any };
};
const gql = (query: string, variables: Record<string, unknown> = {}) => graphql(gw, query, variables);
const trpcMutation = (path: string, input: unknown) => json(`/trpc/${path}`, { method: 'POST', json: input });
const trpcQuery = (path: string, input: unknown) => json(`/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`);

const ids: Record<string, string> = {};
let scoresBefore: any;

beforeAll(async () => {
  // An assigned requirement, so there are scores that must not move.
  expect(
    (await json('/v1/requirements', { method: 'POST', json: { title: 'Audit trail of every record change', framework: 'fda21cfr11', priority: 'high' } }))
      .status,
  ).toBe(201);
  scoresBefore = (await json('/v1/compliance/status')).body;
});

describe('created with a title alone on every transport', () => {
  test('REST: POST /v1/requirements and /api/requirements {title} → 201, framework null', async () => {
    const v1 = await json('/v1/requirements', { method: 'POST', json: { title: 'Users can export their data' } });
    expect(v1.status).toBe(201);
    expect(v1.body).toMatchObject({ title: 'Users can export their data', framework: null, status: 'pending', priority: 'medium', acceptanceCriteria: [] });
    ids.rest = v1.body.id;
    const short = await json('/api/requirements', { method: 'POST', json: { title: 'Sessions time out', framework: null } });
    expect(short.status).toBe(201);
    expect(short.body.framework).toBeNull();
    ids.short = short.body.id;
    expect((await json(`/v1/requirements/${ids.rest}`)).body.framework).toBeNull();
    // Still refused: no title, or a framework outside the catalogue.
    expect((await json('/v1/requirements', { method: 'POST', json: {} })).body.error.code).toBe('VALIDATION_ERROR');
    expect((await json('/v1/requirements', { method: 'POST', json: { title: 'x', framework: 'hipaa' } })).body.error.code).toBe('INVALID_FRAMEWORK');
  });

  test('REST batch: items without a framework are created', async () => {
    const batch = await json('/v1/requirements/batch', {
      method: 'POST',
      json: { requirements: [{ title: 'Batch unassigned' }, { title: 'Batch unassigned too', framework: null }, { title: '' }] },
    });
    expect(batch.status).toBe(200);
    expect(batch.body.created).toHaveLength(2);
    expect(batch.body.errors).toEqual([{ index: 2, field: 'title', message: expect.any(String) }]);
    ids.batch = batch.body.created[0].id;
    ids.batch2 = batch.body.created[1].id;
  });

  test('GraphQL: createRequirement(input: {title}) → framework null, frameworkInfo null', async () => {
    const { body } = await gql('mutation { createRequirement(input: {title: "GraphQL unassigned"}) { id framework frameworkInfo { id } status } }');
    expect(body.errors).toBeUndefined();
    expect(body.data.createRequirement).toMatchObject({ framework: null, frameworkInfo: null, status: 'PENDING' });
    ids.graphql = body.data.createRequirement.id;
  });

  test('tRPC: compliance.createRequirement({title}) → framework null', async () => {
    const created = await trpcMutation('compliance.createRequirement', { title: 'tRPC unassigned' });
    expect(created.status).toBe(200);
    expect(created.body.result.data.framework).toBeNull();
    ids.trpc = created.body.result.data.id;
  });
});

describe('shown as unassigned, not scored', () => {
  const UNASSIGNED = () => [ids.rest, ids.short, ids.batch, ids.batch2, ids.graphql, ids.trpc].sort();

  test('list filter unassigned on REST, GraphQL and tRPC; a framework filter leaves them out; totals count them', async () => {
    const rest = await json('/v1/requirements?unassigned=true&limit=100');
    expect(rest.status).toBe(200);
    expect(rest.body.data.map((r: any) => r.id).sort()).toEqual(UNASSIGNED());
    expect(rest.body.data.every((r: any) => r.framework === null)).toBe(true);
    expect(rest.body.pagination.total).toBe(6);
    const assigned = await json('/api/requirements?unassigned=false&limit=100');
    expect(assigned.body.data.every((r: any) => r.framework !== null)).toBe(true);
    expect(assigned.body.pagination.total).toBe(1);
    const all = await json('/v1/requirements?limit=100');
    expect(all.body.pagination.total).toBe(7);
    const fda = await json('/v1/requirements?framework=fda21cfr11');
    expect(fda.body.data.map((r: any) => r.framework)).toEqual(['fda21cfr11']);
    expect((await json('/v1/requirements?framework=gdpr&unassigned=true')).body.error.code).toBe('VALIDATION_ERROR');
    expect((await json('/v1/requirements?unassigned=maybe')).status).toBe(400);

    const viaGql = await gql('{ requirements(filter: {unassigned: true}, limit: 100) { data { id framework } pagination { total } } }');
    expect(viaGql.body.errors).toBeUndefined();
    expect(viaGql.body.data.requirements.data.map((r: any) => r.id).sort()).toEqual(UNASSIGNED());
    expect(viaGql.body.data.requirements.pagination.total).toBe(6);
    const viaTrpc = await trpcQuery('compliance.requirements', { unassigned: true, limit: 100 });
    expect(viaTrpc.body.result.data.data.map((r: any) => r.id).sort()).toEqual(UNASSIGNED());
  });

  test('scores do not move; the dashboard counts them as unassigned on REST, GraphQL and tRPC', async () => {
    const status = (await json('/v1/compliance/status')).body;
    expect(status).toEqual(scoresBefore);
    const metrics = (await json('/v1/dashboard/metrics')).body;
    expect(metrics.requirements).toMatchObject({ total: 7, unassigned: 6 });
    const viaGql = await gql('{ dashboardMetrics { requirements { total unassigned } } }');
    expect(viaGql.body.errors).toBeUndefined();
    expect(viaGql.body.data.dashboardMetrics.requirements).toEqual({ total: 7, unassigned: 6 });
    const viaTrpc = await json('/trpc/live.dashboardMetrics');
    expect(viaTrpc.body.result.data.requirements.unassigned).toBe(6);
  });

  test('validation: a warning that it is not assigned, no clause mapping; inline too', async () => {
    const validated = await json(`/v1/requirements/${ids.rest}/validate`, { method: 'POST' });
    expect(validated.status).toBe(200);
    expect(validated.body.complianceMapping).toEqual({});
    expect(validated.body.issues).toContainEqual(expect.objectContaining({ ruleId: 'framework-supported', severity: 'warning', field: 'framework' }));
    const inline = await json('/api/validate', { method: 'POST', json: { title: 'Users can export their data quickly' } });
    expect(inline.body.complianceMapping).toEqual({});
    const viaGql = await gql('{ validateInline(input: {title: "Users can export their data quickly"}) { complianceMapping issues { ruleId severity } } }');
    expect(viaGql.body.data.validateInline.issues).toContainEqual({ ruleId: 'framework-supported', severity: 'WARNING' });
  });

  test('traceability counts them as unassigned, in no matrix', async () => {
    const rest = (await json('/v1/compliance/traceability?framework=gdpr')).body;
    expect(rest.summary.unassignedRequirements).toBe(6);
    expect(rest.summary.requirements).toBe(0);
    const viaGql = await gql('{ traceability(framework: GDPR) { summary { requirements unassignedRequirements } } }');
    expect(viaGql.body.data.traceability.summary).toEqual({ requirements: 0, unassignedRequirements: 6 });
  });

  test('a report over every framework lists them with the framework "unassigned", outside every framework\'s score', async () => {
    const created = await json('/v1/dashboard/reports', { method: 'POST', json: { type: 'requirements', period: 'last_7_days', format: 'json' } });
    expect(created.status).toBe(202);
    let done: any;
    for (const until = Date.now() + 30_000; ;) {
      done = (await json(`/v1/dashboard/reports/${created.body.reportId}`)).body;
      if (done.status === 'completed' || done.status === 'failed' || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(done.status).toBe('completed');
    const model: any = await (await gw.request(done.downloadUrl)).json();
    const rows = model.requirements.filter((r: any) => UNASSIGNED().includes(r.id));
    expect(rows).toHaveLength(6);
    expect(rows.every((r: any) => r.framework === 'unassigned')).toBe(true);
    const counted = model.summary.frameworks.reduce((n: number, f: any) => n + (f.requirements?.total ?? f.total ?? 0), 0);
    expect(counted).toBe(1);
  });

  test('assigned later, it is scored like any other', async () => {
    const updated = await json(`/v1/requirements/${ids.trpc}`, { method: 'PUT', json: { framework: 'gdpr' } });
    expect(updated.status).toBe(200);
    expect(updated.body.framework).toBe('gdpr');
    expect((await json('/v1/dashboard/metrics')).body.requirements.unassigned).toBe(5);
    expect((await json('/v1/requirements?unassigned=true&limit=100')).body.pagination.total).toBe(5);
    const gdpr = (await json('/v1/compliance/status')).body.frameworks.gdpr;
    expect(gdpr.requirements.total).toBe(1);
    expect(scoresBefore.frameworks.gdpr.status).toBe('not-assessed');
    expect(gdpr.status).not.toBe('not-assessed');
  });
});
