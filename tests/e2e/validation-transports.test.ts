import { graphql, issueKey, useGateway } from '../helpers/gateway';

/**
 * Inline and batch validation (`POST /api/validate`, `POST /api/validate/batch`) on every transport
 * (issue 35): GraphQL `validateInline` / `validateBatch`, tRPC `compliance.validateInline`,
 * `compliance.validate` and `compliance.validateBatch` answer what REST answers, with its permissions.
 */
const gw = useGateway();

const gql = (query: string, variables: Record<string, unknown> = {}, auth?: string | null) => graphql(gw, query, variables, auth);
const rest = async (path: string, json: unknown, auth?: string | null) => {
  const res = await gw.request(path, { method: 'POST', json, auth });
  return { status: res.status, body: (await res.json()) as any };
};
const trpcQuery = async (path: string, input: unknown, auth?: string | null) => {
  const res = await gw.request(`/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, { auth });
  return { status: res.status, body: (await res.json()) as any };
};
const trpcMutation = async (path: string, input: unknown, auth?: string | null) => {
  const res = await gw.request(`/trpc/${path}`, { method: 'POST', json: input, auth });
  return { status: res.status, body: (await res.json()) as any };
};

const RESULT = 'valid score issues { ruleId severity field message } suggestions complianceMapping';
const INLINE = {
  title: 'Users should be able to export data quickly',
  framework: 'gdpr',
  acceptanceCriteria: ['An export of a subject’s data completes within 30 days'],
};

const create = async (title: string) => (await rest('/v1/requirements', { title, framework: 'soc2', priority: 'high' })).body.id as string;
const latest = async (id: string) => ((await (await gw.request(`/api/validate/${id}`)).json()) as any).validation;

describe('inline validation', () => {
  test('GraphQL validateInline and tRPC validateInline / validate answer what POST /api/validate answers, storing nothing', async () => {
    const viaRest = await rest('/api/validate', INLINE);
    expect(viaRest.status).toBe(200);
    expect(viaRest.body.issues.length).toBeGreaterThan(0);

    const viaGql = await gql(`query($input: CreateRequirementInput!) { validateInline(input: $input) { ${RESULT} } }`, {
      input: { ...INLINE, framework: 'GDPR' },
    });
    expect(viaGql.body.errors).toBeUndefined();
    // GraphQL spells enum values its own way (HIGH, ERROR); the rest is the same answer.
    const gqlResult = viaGql.body.data.validateInline;
    expect({ ...gqlResult, issues: gqlResult.issues.map((i: any) => ({ ...i, severity: i.severity.toLowerCase() })) }).toEqual({
      valid: viaRest.body.valid,
      score: viaRest.body.score,
      issues: viaRest.body.issues.map(({ ruleId, severity, field, message }: any) => ({ ruleId, severity, field, message })),
      suggestions: viaRest.body.suggestions,
      complianceMapping: viaRest.body.complianceMapping,
    });

    const viaTrpcQuery = await trpcQuery('compliance.validateInline', INLINE);
    expect(viaTrpcQuery.status).toBe(200);
    expect(viaTrpcQuery.body.result.data).toEqual(viaRest.body);
    const viaTrpc = await trpcMutation('compliance.validate', INLINE);
    expect(viaTrpc.status).toBe(200);
    expect(viaTrpc.body.result.data).toEqual(viaRest.body);

    // Nothing was stored by any of them.
    const listed = (await (await gw.request(`/v1/requirements?framework=gdpr&limit=500`)).json()) as any;
    expect(listed.data.filter((r: any) => r.title === INLINE.title)).toEqual([]);
  });

  test('bad input: the same codes as REST', async () => {
    const restBad = await rest('/api/validate', { title: 'x', framework: 'hipaa' });
    expect(restBad.body.error.code).toBe('INVALID_FRAMEWORK');
    const trpcBad = await trpcMutation('compliance.validate', { title: 'x', framework: 'hipaa' });
    expect(trpcBad.status).toBe(400);
    expect(trpcBad.body.error.data.domainCode).toBe('INVALID_FRAMEWORK');
    const trpcBlank = await trpcQuery('compliance.validateInline', { title: '  ', framework: 'gdpr' });
    expect(trpcBlank.status).toBe(400);
    expect(trpcBlank.body.error.data).toMatchObject({ domainCode: 'VALIDATION_ERROR', fields: [{ field: 'title', message: expect.any(String) }] });
    const gqlBlank = await gql(`query { validateInline(input: {title: "  ", framework: GDPR}) { valid } }`);
    expect(gqlBlank.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  });

  test('tRPC validate by requirementId validates and records, as POST /api/validate does', async () => {
    const id = await create('tRPC validate by id');
    expect(await latest(id)).toBeNull();
    const byId = await trpcMutation('compliance.validate', { requirementId: id });
    expect(byId.status).toBe(200);
    expect((await latest(id)).score).toBe(byId.body.result.data.score);
    const missing = await trpcMutation('compliance.validate', { requirementId: 'req_missing' });
    expect(missing.status).toBe(404);
    expect(missing.body.error.data.domainCode).toBe('NOT_FOUND');
  });

  test('inline needs read:requirements; by id needs write:requirements', async () => {
    const reader = await issueKey(gw, ['read:requirements']);
    const other = await issueKey(gw, ['read:audits']);
    expect(
      (await gql(`query($input: CreateRequirementInput!) { validateInline(input: $input) { valid } }`, { input: { ...INLINE, framework: 'GDPR' } }, reader))
        .body.errors,
    ).toBeUndefined();
    expect((await trpcQuery('compliance.validateInline', INLINE, reader)).status).toBe(200);
    expect((await trpcMutation('compliance.validate', INLINE, reader)).status).toBe(200);
    const refused = await gql(
      `query($input: CreateRequirementInput!) { validateInline(input: $input) { valid } }`,
      { input: { ...INLINE, framework: 'GDPR' } },
      other,
    );
    expect(refused.body.errors[0].extensions.code).toBe('AUTHORIZATION_ERROR');
    expect((await trpcMutation('compliance.validate', INLINE, other)).status).toBe(403);
    const id = await create('Validate by id needs write');
    expect((await trpcMutation('compliance.validate', { requirementId: id }, reader)).status).toBe(403);
    expect((await trpcQuery('compliance.validateInline', INLINE, null)).status).toBe(401);
  });
});

describe('batch validation', () => {
  test('GraphQL validateBatch and tRPC validateBatch record each outcome and report unknown ids, as POST /api/validate/batch does', async () => {
    const [a, b] = [await create('Batch A over GraphQL'), await create('Batch B over tRPC')];
    const viaGql = await gql(
      `mutation($ids: [String!]!) { validateBatch(requirementIds: $ids) { results { requirementId ${RESULT} } errors { requirementId message } } }`,
      {
        ids: [a, 'req_missing'],
      },
    );
    expect(viaGql.body.errors).toBeUndefined();
    const gqlOut = viaGql.body.data.validateBatch;
    expect(gqlOut.results).toHaveLength(1);
    expect(gqlOut.results[0]).toMatchObject({ requirementId: a, valid: expect.any(Boolean), score: expect.any(Number) });
    expect(gqlOut.errors).toEqual([{ requirementId: 'req_missing', message: expect.stringContaining('not found') }]);
    expect((await latest(a)).score).toBe(gqlOut.results[0].score);

    const viaTrpc = await trpcMutation('compliance.validateBatch', { requirementIds: [b, 'req_missing'] });
    expect(viaTrpc.status).toBe(200);
    expect(viaTrpc.body.result.data.results).toEqual([expect.objectContaining({ requirementId: b, score: expect.any(Number) })]);
    expect(viaTrpc.body.result.data.errors).toEqual([{ requirementId: 'req_missing', message: expect.stringContaining('not found') }]);
    expect((await latest(b)).score).toBe(viaTrpc.body.result.data.results[0].score);

    // The same stored requirement validated over REST gives the same outcome.
    const viaRest = await rest('/api/validate/batch', { requirementIds: [a] });
    expect(viaRest.body.results[0].score).toBe(gqlOut.results[0].score);
  });

  test('limits and permissions as REST: 1..100 ids, write:requirements', async () => {
    const tooMany = Array.from({ length: 101 }, (_, i) => `req_${i}`);
    const gqlMany = await gql(`mutation($ids: [String!]!) { validateBatch(requirementIds: $ids) { errors { requirementId } } }`, { ids: tooMany });
    expect(gqlMany.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
    const gqlNone = await gql(`mutation { validateBatch(requirementIds: []) { errors { requirementId } } }`);
    expect(gqlNone.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
    expect((await trpcMutation('compliance.validateBatch', { requirementIds: tooMany })).status).toBe(400);
    const reader = await issueKey(gw, ['read:requirements']);
    const id = await create('Batch needs write');
    const refused = await gql(`mutation($ids: [String!]!) { validateBatch(requirementIds: $ids) { errors { requirementId } } }`, { ids: [id] }, reader);
    expect(refused.body.errors[0].extensions.code).toBe('AUTHORIZATION_ERROR');
    expect((await trpcMutation('compliance.validateBatch', { requirementIds: [id] }, reader)).status).toBe(403);
    expect(await latest(id)).toBeNull();
  });
});
