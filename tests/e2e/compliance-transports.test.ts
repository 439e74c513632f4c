import { listenToStatements } from '../../domain/database/statement-tap';
import { expectScoreByModel } from '../helpers/scoring';
import { graphql, issueKey, useGateway } from '../helpers/gateway';

/** GraphQL and tRPC over the same compliance domain operations as REST. */
const gw = useGateway();

const gql = (query: string, variables: Record<string, unknown> = {}, auth?: string | null) => graphql(gw, query, variables, auth);

const trpcQuery = async (path: string, input?: unknown, auth?: string | null) => {
  const qs = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`;
  const res = await gw.request(`/trpc/${path}${qs}`, { auth });
  return { status: res.status, body: (await res.json()) as any };
};
const trpcMutation = async (path: string, input: unknown, auth?: string | null) => {
  const res = await gw.request(`/trpc/${path}`, { method: 'POST', json: input, auth });
  return { status: res.status, body: (await res.json()) as any };
};

const REQUIREMENT_FIELDS = `id title framework status priority acceptanceCriteria createdAt
  technicalContext { scope relatedComponents } implementation { testFile completedAt } validation { status score }
  frameworkInfo { id name requirementCount supported }`;

describe('GraphQL', () => {
  const ids: string[] = [];

  test('createRequirement, then requirements with nested findings (batched through the DataLoader)', async () => {
    for (const title of ['GraphQL one', 'GraphQL two', 'GraphQL three']) {
      const { body } = await gql(`mutation($input: CreateRequirementInput!) { createRequirement(input: $input) { ${REQUIREMENT_FIELDS} } }`, {
        input: {
          title,
          framework: 'GDPR',
          priority: 'HIGH',
          acceptanceCriteria: ['Data export completes within 30 days'],
          technicalContext: { scope: 'export' },
        },
      });
      expect(body.errors).toBeUndefined();
      expect(body.data.createRequirement).toMatchObject({
        title,
        framework: 'GDPR',
        priority: 'HIGH',
        status: 'PENDING',
        technicalContext: { scope: 'export', relatedComponents: null },
      });
      ids.push(body.data.createRequirement.id);
    }
    for (const [i, title] of [
      [0, 'Finding A1'],
      [0, 'Finding A2'],
      [2, 'Finding C1'],
    ] as const) {
      const { body } = await gql(`mutation($input: CreateFindingInput!) { createFinding(input: $input) { id status requirementId } }`, {
        input: { title, framework: 'GDPR', severity: 'MEDIUM', requirementId: ids[i] },
      });
      expect(body.errors).toBeUndefined();
      expect(body.data.createFinding).toMatchObject({ status: 'OPEN', requirementId: ids[i] });
    }

    const { body } = await gql(
      `query($filter: RequirementFilter) { requirements(filter: $filter, limit: 10) {
         data { id title frameworkInfo { id name } findings { title severity status } }
         pagination { total limit offset hasMore } } }`,
      { filter: { framework: 'GDPR' } },
    );
    expect(body.errors).toBeUndefined();
    const page = body.data.requirements;
    expect(page.pagination).toEqual({ total: 3, limit: 10, offset: 0, hasMore: false });
    expect(page.data.map((r: any) => r.id)).toEqual([...ids].reverse());
    const byId = Object.fromEntries(page.data.map((r: any) => [r.id, r]));
    expect(byId[ids[0]].findings.map((f: any) => f.title).sort()).toEqual(['Finding A1', 'Finding A2']);
    expect(byId[ids[1]].findings).toEqual([]);
    expect(byId[ids[2]].findings.map((f: any) => f.title)).toEqual(['Finding C1']);
    expect(byId[ids[0]].frameworkInfo).toMatchObject({ id: 'GDPR', name: expect.any(String) });
  });

  test("two selections of a page's findings (aliases) each answer what they ask, from the page's own statement", async () => {
    const statements: string[] = [];
    const stop = listenToStatements((tap, text) => {
      if (tap === 'stated') statements.push(text);
    });
    try {
      const { body } = await gql(
        `{ requirements(filter: {framework: GDPR}) { data { id brief: findings { title } full: findings { title severity status } } } }`,
      );
      expect(body.errors).toBeUndefined();
      const byId = Object.fromEntries(body.data.requirements.data.map((r: any) => [r.id, r]));
      expect(byId[ids[0]].brief.map((f: any) => f.title).sort()).toEqual(['Finding A1', 'Finding A2']);
      expect(byId[ids[0]].brief[0]).toEqual({ title: expect.any(String) });
      expect(byId[ids[0]].full.map((f: any) => f.title).sort()).toEqual(['Finding A1', 'Finding A2']);
      expect(byId[ids[0]].full[0]).toEqual({ title: expect.any(String), severity: 'MEDIUM', status: 'OPEN' });
      expect(byId[ids[1]].brief).toEqual([]);
      expect(byId[ids[2]].full).toEqual([{ title: 'Finding C1', severity: 'MEDIUM', status: 'OPEN' }]);
      expect(statements.filter((text) => /\bfrom audit_findings\b/.test(text))).toHaveLength(1);
    } finally {
      stop();
    }
  });

  test("nested findings of a whole page are read in the page's own statement", async () => {
    // The page's statement reads each requirement's findings beside it, and no statement of their
    // own follows (statements as the gateway states them, statement-tap.ts).
    const statements: string[] = [];
    const stop = listenToStatements((tap, text) => {
      if (tap === 'stated') statements.push(text);
    });
    try {
      const { body } = await gql(`{ requirements(filter: {framework: GDPR}) { data { id findings { id } } } }`);
      expect(body.errors).toBeUndefined();
      expect(body.data.requirements.data).toHaveLength(3);
      expect(body.data.requirements.data.map((r: { id: string }) => r.id).sort()).toEqual([...ids].sort());
      const findingQueries = statements.filter((text) => /\bfrom audit_findings\b/.test(text));
      expect(findingQueries).toHaveLength(1);
      expect(findingQueries[0]).toMatch(/\bfrom requirements\b/);
    } finally {
      stop();
    }
  });

  test('update, validate, status, frameworks, batch and delete', async () => {
    const upd = await gql(`mutation($id: String!) { updateRequirement(id: $id, input: {status: COMPLETED}) { status implementation { completedAt } } }`, {
      id: ids[1],
    });
    expect(upd.body.data.updateRequirement.status).toBe('COMPLETED');
    expect(upd.body.data.updateRequirement.implementation.completedAt).toEqual(expect.any(String));

    const val = await gql(
      `mutation($id: String!) { validateRequirement(id: $id) { valid score issues { ruleId severity field message } suggestions complianceMapping } }`,
      { id: ids[1] },
    );
    expect(val.body.errors).toBeUndefined();
    expect(typeof val.body.data.validateRequirement.score).toBe('number');
    const stored = await gql(`query($id: String!) { requirement(id: $id) { validation { status score } } }`, { id: ids[1] });
    expect(stored.body.data.requirement.validation.score).toBe(val.body.data.validateRequirement.score);

    const status = await gql(
      `{ complianceStatus(framework: GDPR) { overallScore frameworks { framework score status requirements { total completed } lastAssessment scoring { coverage { clauses covered percent } implementation validation base findings { open { critical high medium low } penalty cap } } } } }`,
    );
    // Three high requirements, one completed: implementation 33.3; the score weighs it with coverage, validation and open findings.
    const gdpr = status.body.data.complianceStatus.frameworks[0];
    expect(gdpr).toEqual(expect.objectContaining({ framework: 'GDPR', requirements: { total: 3, completed: 1 }, status: 'NON_COMPLIANT' }));
    expect(gdpr.scoring.implementation).toBe(33.3);
    expectScoreByModel(gdpr);

    const fw = await gql(`{ frameworks { id requirementCount requirements { section } validationRules { id } } framework(id: SOC2) { name version } }`);
    expect(fw.body.data.frameworks).toHaveLength(4);
    expect(fw.body.data.frameworks[0].requirements).toHaveLength(fw.body.data.frameworks[0].requirementCount);
    expect(fw.body.data.framework.name).toEqual(expect.any(String));

    const batch = await gql(
      `mutation { batchCreateRequirements(requirements: [{title: "B1", framework: SOC2}, {title: " ", framework: GDPR}]) { created { id title status } errors { index field message } } }`,
    );
    expect(batch.body.data.batchCreateRequirements.created).toEqual([{ id: expect.any(String), title: 'B1', status: 'created' }]);
    expect(batch.body.data.batchCreateRequirements.errors).toEqual([{ index: 1, field: 'title', message: expect.any(String) }]);

    const bs = await gql(
      `mutation($u: [StatusUpdateInput!]!) { batchUpdateRequirementStatus(updates: $u) { updated { id status } errors { index id message } } }`,
      {
        u: [
          { id: ids[2], status: 'IN_PROGRESS' },
          { id: 'req_missing', status: 'COMPLETED' },
        ],
      },
    );
    expect(bs.body.data.batchUpdateRequirementStatus.updated).toEqual([{ id: ids[2], status: 'IN_PROGRESS' }]);
    expect(bs.body.data.batchUpdateRequirementStatus.errors[0]).toMatchObject({ index: 1, id: 'req_missing' });

    const findings = await gql(`{ findings(filter: {framework: GDPR}, limit: 2) { data { id } pagination { total hasMore } } }`);
    expect(findings.body.data.findings.pagination).toEqual({ total: 3, hasMore: true });
    const fid = findings.body.data.findings.data[0].id;
    const resolved = await gql(
      `mutation($id: String!) { updateFinding(id: $id, input: {status: RESOLVED, resolution: "Fixed"}) { status resolvedAt resolution } }`,
      { id: fid },
    );
    expect(resolved.body.data.updateFinding).toMatchObject({ status: 'RESOLVED', resolution: 'Fixed', resolvedAt: expect.any(String) });

    const del = await gql(`mutation($id: String!) { deleteRequirement(id: $id) { id deleted deletedAt } }`, { id: ids[0] });
    expect(del.body.data.deleteRequirement).toMatchObject({ id: ids[0], deleted: true });
    const gone = await gql(`query($id: String!) { requirement(id: $id) { id } }`, { id: ids[0] });
    expect(gone.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  test('domain errors carry their code in extensions', async () => {
    // A framework outside the closed set is refused by the schema (FrameworkId enum) before any resolver runs.
    const bad = await gql(`{ requirements(filter: {framework: HIPAA}) { data { id } } }`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(bad.body.errors[0].message).toMatch(/"HIPAA" does not exist in "FrameworkId" enum/);
    const restSpelling = await gql(`query($f: FrameworkId) { requirements(filter: {framework: $f}) { data { id } } }`, { f: 'gdpr' });
    expect(restSpelling.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(restSpelling.body.errors[0].message).toMatch(/"gdpr" does not exist in "FrameworkId" enum/);
    const tooMany = await gql(`{ requirements(limit: 501) { data { id } } }`);
    expect(tooMany.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
    expect(tooMany.body.errors[0].extensions.fields[0].field).toBe('limit');
    const anon = await gql(`{ frameworks { id } }`, {}, null);
    expect(anon.body.errors[0].extensions.code).toBe('AUTHENTICATION_ERROR');
  });

  test('nested findings need read:audits; the rest of the answer still arrives', async () => {
    const key = await issueKey(gw, ['read:requirements']);
    const { body } = await gql(`{ requirements(limit: 1) { data { id findings { id } } } }`, {}, key);
    expect(body.data.requirements.data[0]).toEqual({ id: expect.any(String), findings: null });
    expect(body.errors[0].extensions.code).toBe('AUTHORIZATION_ERROR');
    expect(body.errors[0].path).toEqual(['requirements', 'data', 0, 'findings']);
    const plain = await gql(`{ requirements(limit: 1) { data { id } } }`, {}, key);
    expect(plain.body.errors).toBeUndefined();
  });

  test('createApiKey issues a working key', async () => {
    const { body } = await gql(
      `mutation { createApiKey(input: {name: "gql", permissions: [READ_COMPLIANCE], expiresIn: "1h"}) { id key name permissions expiresAt } }`,
    );
    expect(body.errors).toBeUndefined();
    const issued = body.data.createApiKey;
    expect(issued).toMatchObject({ name: 'gql', permissions: ['READ_COMPLIANCE'] });
    expect(Date.parse(issued.expiresAt)).toBeGreaterThan(Date.now());
    const ok = await gql(`{ frameworks { id } }`, {}, issued.key);
    expect(ok.body.data.frameworks).toHaveLength(4);
    const denied = await gql(`{ requirements { data { id } } }`, {}, issued.key);
    expect(denied.body.errors[0].extensions.code).toBe('AUTHORIZATION_ERROR');
  });
});

describe('tRPC', () => {
  test('queries and mutations answer the same data', async () => {
    const created = await trpcMutation('compliance.createRequirement', { title: 'tRPC requirement', framework: 'iso13485', priority: 'critical' });
    expect(created.status).toBe(200);
    const id = created.body.result.data.id;
    const got = await trpcQuery('compliance.requirement', { id });
    expect(got.body.result.data).toMatchObject({ id, title: 'tRPC requirement', status: 'pending' });
    const list = await trpcQuery('compliance.requirements', { framework: 'iso13485', limit: 5 });
    expect(list.body.result.data.data[0].id).toBe(id);
    expect(list.body.result.data.pagination).toMatchObject({ limit: 5, offset: 0 });
    const status = await trpcQuery('compliance.complianceStatus', { framework: 'iso13485' });
    expect(status.body.result.data.frameworks.iso13485.requirements.total).toBe(1);
    const fws = await trpcQuery('compliance.frameworks');
    expect(fws.body.result.data.data).toHaveLength(4);
    const key = await trpcMutation('auth.createApiKey', { name: 'trpc', permissions: ['read:requirements'] });
    expect(key.body.result.data.key).toMatch(/^sk_/);
  });

  test('errors carry the tRPC code and the domain code', async () => {
    const missing = await trpcQuery('compliance.requirement', { id: 'req_missing' });
    expect(missing.status).toBe(404);
    expect(missing.body.error.data).toMatchObject({ code: 'NOT_FOUND', domainCode: 'NOT_FOUND', httpStatus: 404 });
    const invalid = await trpcMutation('compliance.createRequirement', { title: 'x', framework: 'hipaa' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.data).toMatchObject({ code: 'BAD_REQUEST', domainCode: 'INVALID_FRAMEWORK' });
    const anon = await trpcQuery('compliance.frameworks', undefined, null);
    expect(anon.status).toBe(401);
    expect(anon.body.error.data.domainCode).toBe('AUTHENTICATION_ERROR');
  });
});
