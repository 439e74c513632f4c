import { graphql, issueKey, useGateway } from '../helpers/gateway';

/**
 * The GraphQL response cache (gateway/graphql.ts): read-model answers are reused only while the
 * read model's version (bumped by database triggers on requirements and audit findings) is unchanged,
 * and only for the same query, variables and caller.
 */
const gw = useGateway();
afterEach(() => jest.restoreAllMocks());

const QUERY = `query Page($limit: Int) { requirements(limit: $limit) { data { id title status findings { id title } } } }`;

const gql = (query: string, variables: Record<string, unknown> = {}, auth?: string) => graphql(gw, query, variables, auth || undefined);

async function createRequirement(title: string): Promise<string> {
  const res = await gw.request('/v1/requirements', {
    method: 'POST',
    json: { title, description: 'Cached answers must never hide this change.', framework: 'gdpr', priority: 'high', acceptanceCriteria: ['it shows up'] },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as any).id;
}

test('a repeated read-model query is answered from the cache; every kind of write is seen at once', async () => {
  const id = await createRequirement('Cached requirement one');
  const list = jest.spyOn(gw.services.requirements, 'list');

  const first = await gql(QUERY, { limit: 10 });
  const second = await gql(QUERY, { limit: 10 });
  expect(second.body).toEqual(first.body);
  expect(list).toHaveBeenCalledTimes(1); // the second came from the cache

  // A write through REST (another transport, so no in-process hint): seen by the next query.
  const put = await gw.request(`/v1/requirements/${id}`, { method: 'PUT', json: { status: 'in-progress' } });
  expect(put.status).toBe(200);
  const afterUpdate = await gql(QUERY, { limit: 10 });
  expect(afterUpdate.body.data.requirements.data.find((r: any) => r.id === id).status).toBe('IN_PROGRESS');
  expect(list).toHaveBeenCalledTimes(2);

  // A new finding (the other table of the read model) shows up nested.
  const f = await gw.request('/v1/audits/findings', {
    method: 'POST',
    json: { title: 'Cached finding', framework: 'gdpr', severity: 'low', requirementId: id },
  });
  expect(f.status).toBe(201);
  const afterFinding = await gql(QUERY, { limit: 10 });
  expect(afterFinding.body.data.requirements.data.find((r: any) => r.id === id).findings.map((x: any) => x.title)).toContain('Cached finding');

  // A change made in SQL by someone else entirely: the database's triggers bump the version too.
  await (gw.db.orm.em.fork() as any).getConnection().execute(`update requirements set title = 'Renamed behind our back' where id = ?`, [id]);
  const afterSql = await gql(QUERY, { limit: 10 });
  expect(afterSql.body.data.requirements.data.find((r: any) => r.id === id).title).toBe('Renamed behind our back');

  // A delete.
  expect((await gw.request(`/api/requirements/${id}`, { method: 'DELETE' })).status).toBeLessThan(300);
  const afterDelete = await gql(QUERY, { limit: 10 });
  expect(afterDelete.body.data.requirements.data.some((r: any) => r.id === id)).toBe(false);
});

test('answers are kept per variables and per caller; answers with errors are not kept', async () => {
  await createRequirement('Cached requirement two');
  await createRequirement('Cached requirement three');
  const one = await gql(QUERY, { limit: 1 });
  const two = await gql(QUERY, { limit: 2 });
  expect(one.body.data.requirements.data).toHaveLength(1);
  expect(two.body.data.requirements.data).toHaveLength(2);

  // A key that may read requirements but not audits gets its own answer: findings refused, with an error.
  const reader = await issueKey(gw, ['read:requirements']);
  const list = jest.spyOn(gw.services.requirements, 'list');
  for (let i = 0; i < 2; i++) {
    const limited = await gql(QUERY, { limit: 2 }, reader);
    expect(limited.body.errors?.[0]?.extensions?.code).toBe('AUTHORIZATION_ERROR');
    expect(limited.body.data.requirements.data[0].findings).toBeNull();
  }
  // Not cached: it had errors. Each request computed once, by Apollo.
  expect(list).toHaveBeenCalledTimes(2);
  // The admin's cached answer is unchanged by the other caller's.
  expect((await gql(QUERY, { limit: 2 })).body).toEqual(two.body);
});

test('mutations and queries outside the read model are never cached', async () => {
  const status = jest.spyOn(gw.services.complianceStatus, 'getStatus');
  await gql('{ complianceStatus { overallScore } }');
  await gql('{ complianceStatus { overallScore } }');
  expect(status.mock.calls.length).toBeGreaterThanOrEqual(2);
  const made = await gql(
    `mutation { createRequirement(input: {title: "Via a mutation", description: "Mutations always run.", framework: SOC2, priority: LOW, acceptanceCriteria: ["runs"]}) { id } }`,
  );
  const again = await gql(
    `mutation { createRequirement(input: {title: "Via a mutation", description: "Mutations always run.", framework: SOC2, priority: LOW, acceptanceCriteria: ["runs"]}) { id } }`,
  );
  expect(made.body.data.createRequirement.id).not.toBe(again.body.data.createRequirement.id);
});
