/**
 * The read lane's GraphQL branch (gateway/read-lane-graphql.ts) computes what nothing keeps: here
 * the gateway keeps nothing (READ_MODEL_CACHE_BYTES=0), so every `POST /graphql` query is admitted
 * (input checks, budgets, list cost), executed by the pipeline and answered in front of express and
 * Apollo. Its answers must be byte for byte and header for header Apollo's; each root field counts
 * once; a result with errors, a refusal, a mutation, an invalid document or an introspection go to
 * Apollo, which answers in its own words and counts them once; a write is seen by the next read.
 * tests/e2e/read-lane-graphql.test.ts covers kept results.
 */
import { ApolloServer } from '@apollo/server';
import { GRAPHQL_QUERY } from '../../bench/cases/compliance-seed';
import { ADMIN_KEY, issueKey, okJson, sqlOf, useGateway } from '../helpers/gateway';
import { capturedLog, expectContextsOfTheirOwn, withoutRetrySeconds, seedLaneRequirements, comparable, planCount, postGraphql, type LaneAnswer } from '../helpers/read-lane';

const { lines: logLines, logger } = capturedLog();
const gw = useGateway({ READ_MODEL_CACHE_BYTES: '0' }, { logger });
afterEach(() => jest.restoreAllMocks());

let key: string;
let ids: string[];
beforeAll(async () => {
  ids = await seedLaneRequirements(gw, 'Computed GraphQL requirement', 'computed');
  await okJson(gw, '/v1/audits/findings', { method: 'POST', json: { title: 'A finding on the first', framework: 'gdpr', severity: 'high', requirementId: ids[0] } });
  key = await issueKey(gw, ['read:requirements', 'write:requirements', 'read:audits']);
});

const post = (body: string | object, auth: string | null = key, headers: Record<string, string> = {}) => postGraphql(gw, body, auth, headers);
/** Apollo answers a request with a CSRF preflight header no differently; the lane never takes one. */
const NOT_FOR_THE_LANE = { 'apollo-require-preflight': 'true' };
/** Apollo's server, spied on: it runs for every request the lane hands on, and for no other. */
const apollo = () => jest.spyOn(ApolloServer.prototype, 'executeHTTPGraphQLRequest').mockClear();

function expectSameAnswer(a: LaneAnswer, b: LaneAnswer) {
  expect(a.status).toBe(b.status);
  expect(a.text).toBe(b.text);
  expect(comparable(a)).toEqual(comparable(b));
  expect(Object.keys(a.headers).sort()).toEqual(Object.keys(b.headers).sort());
}

/**
 * One query answered by the lane (computed: nothing is kept), then by Apollo twice: handed on by the
 * lane (its domain call made to fail once: a result with an error hands on), and not taken by the
 * lane at all (a CSRF preflight header). Each counts `units` on the plan (none for the admin).
 */
async function laneAndApollo(body: object, opts: { auth?: string; call?: 'list' | 'get'; units?: number } = {}) {
  jest.restoreAllMocks();
  const { auth = key, call = 'list', units = 1 } = opts;
  const behind = apollo();
  const counted = planCount();
  const computed = jest.spyOn(gw.services.requirements, call);
  const lane = await post(body, auth);
  expect(behind).not.toHaveBeenCalled();
  expect(computed).toHaveBeenCalledTimes(units);
  expect(counted()).toBe(auth === ADMIN_KEY ? 0 : units);

  computed.mockRejectedValueOnce(new Error('the lane hands this one on'));
  const handedOn = await post(body, auth);
  expect(behind).toHaveBeenCalledTimes(1);
  expect(computed).toHaveBeenCalledTimes(3 * units); // the lane's (one failed), then Apollo's
  expect(counted()).toBe(auth === ADMIN_KEY ? 0 : 2 * units);

  const direct = await post(body, auth, NOT_FOR_THE_LANE);
  expect(behind).toHaveBeenCalledTimes(2);
  expect(computed).toHaveBeenCalledTimes(4 * units);
  expect(counted()).toBe(auth === ADMIN_KEY ? 0 : 3 * units);
  return { lane, handedOn, direct };
}

const LIST = 'query Requirements($limit: Int, $filter: RequirementFilter) { requirements(limit: $limit, filter: $filter) { data { id title status findings { id title } } pagination { total } } }';

/** 500 requirements with their findings and frameworks: over the list-aware cost limit (gateway/graphql/parts/cost.ts). */
const HEAVY = 'query Heavy($limit: Int) { requirements(limit: $limit) { data { id title status findings { id title severity status } frameworkInfo { id name version } } } }';

test('the gateway keeps nothing: every query is computed', () => {
  expect(gw.services.readModel.keeps).toBe(false);
});

describe('computed answers are Apollo’s, byte for byte', () => {
  test.each([
    ['the bench query (issue #14), 50 requirements', (): object => ({ query: GRAPHQL_QUERY, variables: { limit: 50 } }), {}],
    ['a filter in variables, the operation named, variables null', (): object => ({ query: LIST, variables: null, operationName: 'Requirements' }), {}],
    ['a filter in variables', (): object => ({ query: LIST, variables: { limit: 2, filter: { framework: 'GDPR' } } }), {}],
    ['no variables at all', (): object => ({ query: '{ requirements { data { id title } } }' }), {}],
    ['fragments and __typename', (): object => ({ query: 'query Frag { __typename requirements(limit: 2) { ...Page } } fragment Page on RequirementPage { __typename data { ... on Requirement { id frameworkInfo { name } } } }' }), {}],
    ['the query of a document that also holds a mutation', (): object => ({ query: `${LIST} mutation Other { deleteRequirement(id: "req_never") { id } }`, operationName: 'Requirements', variables: { limit: 1 } }), {}],
    ['one requirement', (): object => ({ query: `{ requirement(id: ${JSON.stringify(ids[0])}) { id title status findings { title } } }` }), { call: 'get' as const }],
    ['two root fields (aliases)', (): object => ({ query: 'query Two { a: requirements(limit: 1) { pagination { total } } b: requirements(limit: 2) { data { id } } }' }), { units: 2 }],
    ['the admin key (no plan)', (): object => ({ query: GRAPHQL_QUERY, variables: { limit: 3 } }), { auth: ADMIN_KEY }],
  ] as const)('%s', async (_name, body, opts) => {
    const { lane, handedOn, direct } = await laneAndApollo(body(), { ...opts, auth: 'auth' in opts ? ADMIN_KEY : key });
    expect(lane.status).toBe(200);
    const data = JSON.parse(lane.text).data;
    expect(data).toBeDefined();
    expect(JSON.parse(lane.text).errors).toBeUndefined();
    expectSameAnswer(lane, handedOn);
    expectSameAnswer(lane, direct);
    expect(lane.text.endsWith('}\n')).toBe(true);
    expect(lane.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(lane.headers['content-length']).toBe(String(Buffer.byteLength(lane.text)));
    expect(lane.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('the bench query: findings and frameworks filled in', async () => {
    const { lane } = await laneAndApollo({ query: GRAPHQL_QUERY, variables: { limit: 50 } });
    const first = JSON.parse(lane.text).data.requirements.data.find((r: any) => r.id === ids[0]);
    expect(first.findings.map((f: any) => f.title)).toEqual(['A finding on the first']);
    expect(first.frameworkInfo.id).toBe('GDPR');
  });

  test('queries outside the read model too (frameworks, viewer, status)', async () => {
    const reader = await issueKey(gw, ['read:compliance', 'read:requirements']);
    for (const query of ['{ frameworks { id name } }', 'query Me { viewer { name permissions } }', '{ complianceStatus { __typename } }']) {
      const behind = apollo();
      const counted = planCount();
      const lane = await post({ query }, reader);
      expect(behind).not.toHaveBeenCalled();
      expect(counted()).toBe(1);
      const direct = await post({ query }, reader, NOT_FOR_THE_LANE);
      expect(behind).toHaveBeenCalledTimes(1);
      expect(counted()).toBe(2);
      expect(lane.status).toBe(200);
      expect(JSON.parse(lane.text).errors).toBeUndefined();
      expectSameAnswer(lane, direct);
    }
  });
});

describe('errors, refusals, mutations: Apollo’s, counted once', () => {
  let noAudits: string;
  let noRead: string;
  beforeAll(async () => {
    noAudits = await issueKey(gw, ['read:requirements']);
    noRead = await issueKey(gw, ['read:compliance']);
  });

  test.each([
    // [name, status, counted by Apollo, the body, the key, computed by the lane first]
    ['an unknown framework in the variables (coercion)', 400, 1, (): object => ({ query: LIST, variables: { filter: { framework: 'NOPE' } } }), () => key, true],
    ['an unknown id', 200, 1, (): object => ({ query: '{ requirement(id: "req_unknown") { id } }' }), () => key, true],
    ['a field that throws (findings without read:audits)', 200, 1, (): object => ({ query: LIST, variables: { limit: 2 } }), () => noAudits, true],
    ['a key without read:requirements', 200, 1, (): object => ({ query: LIST, variables: { limit: 2 } }), () => noRead, true],
    ['over the list cost (admitted by the budget, refused after)', 400, 1, (): object => ({ query: HEAVY, variables: { limit: 500 } }), () => key, false],
    ['unstorable text in the variables', 400, 0, (): object => ({ query: 'query T($t: String!) { requirement(id: $t) { id } }', variables: { t: 'a\u0000b' } }), () => key, false],
    ['an invalid document', 400, 0, (): object => ({ query: '{ requirements { data { nope } } }' }), () => key, false],
    ['an operation name the document lacks', 400, 0, (): object => ({ query: LIST, operationName: 'Missing' }), () => key, false],
    ['an introspection', 200, 1, (): object => ({ query: '{ __schema { queryType { name } } }' }), () => key, false],
  ] as const)('%s: %i', async (name, status, units, body, keyOf, computedFirst) => {
    const auth = keyOf();
    const behind = apollo();
    const counted = planCount();
    const domain = jest.spyOn(gw.services.requirements, 'list');
    const domainOne = jest.spyOn(gw.services.requirements, 'get');
    const viaLane = await post(body(), auth, { 'x-request-id': 'computed-graphql-error' });
    expect(behind).toHaveBeenCalledTimes(1);
    expect(counted()).toBe(units);
    const calls = domain.mock.calls.length + domainOne.mock.calls.length;
    const direct = await post(body(), auth, { 'x-request-id': 'computed-graphql-error', ...NOT_FOR_THE_LANE });
    expect(behind).toHaveBeenCalledTimes(2);
    expect(counted()).toBe(2 * units);
    const directCalls = domain.mock.calls.length + domainOne.mock.calls.length - calls;
    // The lane tried (and took its counts back), then Apollo computed again; refused: the lane ran nothing.
    expect(calls).toBe(computedFirst ? 2 * directCalls : directCalls);
    expect(viaLane.status).toBe(status);
    expectSameAnswer(viaLane, direct);
    // Errors but for the introspection (allowed outside production; the lane leaves it to Apollo all the same).
    expect(JSON.parse(viaLane.text).errors === undefined).toBe(name === 'an introspection');
  });

  test('a mutation is never run by the lane: Apollo runs it once, counted once', async () => {
    const behind = apollo();
    const counted = planCount();
    const create = jest.spyOn(gw.services.requirements, 'create');
    const made = await post({ query: 'mutation Make { createRequirement(input: { title: "Made past the lane", framework: GDPR, priority: LOW, acceptanceCriteria: ["x"] }) { id title } }' });
    expect(made.status).toBe(200);
    expect(JSON.parse(made.text).data.createRequirement.title).toBe('Made past the lane');
    expect(behind).toHaveBeenCalledTimes(1);
    expect(create).toHaveBeenCalledTimes(1);
    expect(counted()).toBe(1);
    // The mutation of a document that also holds a query, chosen by name: Apollo's too.
    const chosen = await post({ query: `${LIST} mutation Other { deleteRequirement(id: "req_never") { id } }`, operationName: 'Other' });
    expect(behind).toHaveBeenCalledTimes(2);
    expect(JSON.parse(chosen.text).errors[0].extensions.code).toBe('NOT_FOUND');
    expect(counted()).toBe(2);
  });

  test('over the plan: Apollo refuses in its own words (429, Retry-After), nothing is computed, nothing the lane counted stays', async () => {
    const spender = await issueKey(gw, ['read:requirements']);
    const one = { query: 'query One($limit: Int) { requirements(limit: $limit) { data { id title } pagination { total } } }', variables: { limit: 1 } };
    const two = { query: 'query Two { a: requirements(limit: 1) { pagination { total } } b: requirements(limit: 2) { pagination { total } } }' };
    const remaining = async () => Number((await gw.request(`/v1/requirements/${ids[1]}`, { auth: spender })).headers.get('x-ratelimit-remaining'));
    let left = await remaining();
    // Most of the hour's plan in tRPC batches (each call counts one), the end one operation at a time.
    const call = encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [i, { limit: 1 }]))));
    while (left > 103) {
      const batch = await gw.request(`/trpc/${Array(100).fill('compliance.requirements').join(',')}?batch=1&input=${call}`, { auth: spender });
      expect(batch.status).toBe(200);
      left = await remaining();
    }
    const behind = apollo();
    while (left > 2) {
      expect((await post(one, spender)).status).toBe(200);
      left = await remaining();
    }
    expect(behind).not.toHaveBeenCalled();
    // One count left: two root fields are one too many. The lane takes back what it counted; Apollo counts and refuses.
    expect(await post(one, spender)).toMatchObject({ status: 200 });
    expect(behind).not.toHaveBeenCalled();
    const list = jest.spyOn(gw.services.requirements, 'list');
    const counted = planCount();
    const refused = await post(two, spender, { 'x-request-id': 'computed-graphql-429' });
    expect(behind).toHaveBeenCalledTimes(1);
    // Apollo's own count: its first field fits the plan, the second is refused; both stay counted.
    expect(counted()).toBe(2);
    const direct = await post(two, spender, { 'x-request-id': 'computed-graphql-429', ...NOT_FOR_THE_LANE });
    expect(behind).toHaveBeenCalledTimes(2);
    expect(counted()).toBe(3); // over already: the first field is refused
    expect(list).not.toHaveBeenCalled();
    expect(refused.status).toBe(429);
    // The seconds to wait may differ by one between the two answers.
    expect(withoutRetrySeconds(refused.text)).toBe(withoutRetrySeconds(direct.text));
    const { 'retry-after': retryAfter, ...rest } = comparable(refused);
    const { 'retry-after': directRetryAfter, ...directRest } = comparable(direct);
    expect(rest).toEqual(directRest);
    expect(Math.abs(Number(retryAfter) - Number(directRetryAfter))).toBeLessThanOrEqual(1);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    const err = JSON.parse(refused.text);
    expect(err.data).toBeUndefined();
    expect(err.errors[0].extensions.code).toBe('RATE_LIMIT_EXCEEDED');
    expect((await post(one, spender)).status).toBe(429);
    expect(behind).toHaveBeenCalledTimes(3);
  });
});

describe('per request', () => {
  test('each computed query has its own context: its request id, its own EntityManager fork and loaders', async () => {
    const list = jest.spyOn(gw.services.requirements, 'list');
    const behind = apollo();
    const body = { query: GRAPHQL_QUERY, variables: { limit: 5 } };
    const [a, b] = await Promise.all([post(body), post(body)]);
    expect(behind).not.toHaveBeenCalled();
    expect(a.text).toBe(b.text);
    expect(list).toHaveBeenCalledTimes(2);
    expectContextsOfTheirOwn(gw, list.mock.calls, [a, b], 'test read:requirements,write:requirements,read:audits');
  });

  test('a given X-Request-Id is echoed; the answer is counted in /metrics and logged under Apollo’s label', async () => {
    const body = { query: LIST, variables: { limit: 1 } };
    const before = await metricValue('/graphql:Requirements');
    const behind = apollo();
    const lane = await post(body, key, { 'x-request-id': 'computed-graphql-trace.1' });
    expect(behind).not.toHaveBeenCalled();
    expect(lane.headers['x-request-id']).toBe('computed-graphql-trace.1');
    expect(await metricValue('/graphql:Requirements')).toBe(before + 1);
    await post(body, key, { 'x-request-id': 'computed-graphql-trace.2', ...NOT_FOR_THE_LANE });
    expect(behind).toHaveBeenCalledTimes(1);
    expect(await metricValue('/graphql:Requirements')).toBe(before + 2);
    const anonymous = await metricValue('/graphql:anonymous');
    await post({ query: '{ requirements(limit: 1) { pagination { total } } }' });
    expect(await metricValue('/graphql:anonymous')).toBe(anonymous + 1);
    await new Promise((r) => setTimeout(r, 100)); // pino writes asynchronously
    const logged = logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request' && String(l.requestId).startsWith('computed-graphql-trace'));
    expect(logged.map((l) => [l.requestId, l.path, l.status, l.method, l.lane])).toEqual([
      ['computed-graphql-trace.1', '/graphql:Requirements', 200, 'POST', 'read'],
      ['computed-graphql-trace.2', '/graphql', 200, 'POST', undefined], // express logs the path; metrics have the label
    ]);
  });
});

describe('changes', () => {
  test('a write through GraphQL or REST, and a change committed in SQL, are seen by the next read', async () => {
    const id = ids[2];
    const mine = async () => JSON.parse((await post({ query: GRAPHQL_QUERY, variables: { limit: 50 } })).text).data.requirements.data.find((r: any) => r.id === id);
    const one = async () => JSON.parse((await post({ query: `{ requirement(id: ${JSON.stringify(id)}) { id title status } }` })).text).data.requirement;
    const behind = apollo();
    expect((await mine()).status).toBe('PENDING');
    expect((await one()).status).toBe('PENDING');
    expect(behind).not.toHaveBeenCalled();

    const updated = await post({ query: `mutation { updateRequirement(id: ${JSON.stringify(id)}, input: { status: IN_PROGRESS }) { status } }` });
    expect(JSON.parse(updated.text).data.updateRequirement.status).toBe('IN_PROGRESS');
    expect(behind).toHaveBeenCalledTimes(1);
    expect((await mine()).status).toBe('IN_PROGRESS');
    expect((await one()).status).toBe('IN_PROGRESS');

    await okJson(gw, `/v1/requirements/${id}`, { method: 'PUT', json: { status: 'completed' }, auth: key });
    expect((await mine()).status).toBe('COMPLETED');
    expect((await one()).status).toBe('COMPLETED');

    await sqlOf(gw)(`update requirements set title = 'Renamed behind the computing GraphQL lane' where id = ?`, [id]);
    expect((await one()).title).toBe('Renamed behind the computing GraphQL lane');
    expect((await mine()).title).toBe('Renamed behind the computing GraphQL lane');
    expect(behind).toHaveBeenCalledTimes(1); // only the mutation was Apollo's
  });
});

async function metricValue(route: string): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('http_requests_total{') && l.includes(`route="${route}"`) && l.includes('method="POST"') && l.includes('status="200"'));
  return line ? Number(line.split(' ').pop()) : 0;
}
