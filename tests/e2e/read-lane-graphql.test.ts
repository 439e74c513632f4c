/**
 * The read lane's GraphQL branch (gateway/read-lane-graphql.ts) answers a repeated `POST /graphql`
 * whose result the response cache keeps, in front of express and Apollo. What it answers must be
 * byte for byte and header for header what Apollo answers; the operation must be charged as
 * Apollo's admission charges it; a committed change must be seen by the very next read; and
 * whatever it does not answer reaches Apollo (or express) with its body, answered in their words.
 */
import http from 'node:http';
import { ApolloServer } from '@apollo/server';
import { ADMIN_KEY, issueKey, okJson, sqlOf, useGateway } from '../helpers/gateway';

const gw = useGateway();
afterEach(() => jest.restoreAllMocks());

const QUERY = 'query LanePage($limit: Int) { requirements(limit: $limit) { data { id title status findings { id title } } pagination { total } } }';
const DETAIL = 'query { requirement(id: $ID) { id title status } }';

let key: string;
let ids: string[];
beforeAll(async () => {
  ids = [];
  for (const [i, framework] of ['gdpr', 'soc2'].entries()) {
    ids.push((await okJson(gw, '/v1/requirements', { method: 'POST', json: { title: `GraphQL lane requirement ${i}`, framework, priority: 'high', acceptanceCriteria: ['kept'] } })).id);
  }
  key = await issueKey(gw, ['read:requirements', 'write:requirements', 'read:audits']);
});

interface Answer {
  status: number;
  text: string;
  headers: Record<string, string>;
}

/** A raw POST /graphql (node:http: the headers are exactly the ones given; `chunked` sends no Content-Length). */
function post(body: string | object, opts: { auth?: string | null; headers?: Record<string, string>; chunked?: boolean } = {}): Promise<Answer> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const auth = opts.auth === undefined ? key : opts.auth;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}), ...opts.headers };
  if (!opts.chunked) headers['content-length'] = String(Buffer.byteLength(text));
  return new Promise((resolve, reject) => {
    const req = http.request(`${gw.url}/graphql`, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers as Record<string, string> }));
    });
    req.on('error', reject);
    if (opts.chunked) req.write(text.slice(0, 1));
    req.end(opts.chunked ? text.slice(1) : text);
  });
}

/** Every header but those that differ between any two requests (the request id, the date). */
const comparable = (a: Answer) => {
  const { 'x-request-id': _id, date: _date, ...rest } = a.headers;
  return rest;
};

/** Apollo's server, spied on: it runs for every request the lane hands on, and for no other. */
const apollo = () => jest.spyOn(ApolloServer.prototype, 'executeHTTPGraphQLRequest').mockClear();

/** A header that makes Apollo's answer no different, and the lane leave the request to Apollo. */
const NOT_FOR_THE_LANE = { 'apollo-require-preflight': 'true' };

/**
 * The same request answered by the lane and by Apollo: the lane does not take a request with a CSRF
 * preflight header (a miss is computed by the lane now: tests/e2e/read-lane-graphql-computed.test.ts),
 * so Apollo answers it from the same kept result through its whole path.
 */
async function laneAndBehind(body: object, auth: string = key) {
  jest.restoreAllMocks();
  const first = await post(body, { auth });
  expect(first.status).toBe(200);
  const computes = jest.spyOn(gw.services.requirements, 'list');
  const computesOne = jest.spyOn(gw.services.requirements, 'get');
  const behindTheLane = apollo();
  const lane = await post(body, { auth });
  expect(behindTheLane).not.toHaveBeenCalled();
  const behind = await post(body, { auth, headers: NOT_FOR_THE_LANE });
  expect(behindTheLane).toHaveBeenCalledTimes(1);
  expect(computes).not.toHaveBeenCalled();
  expect(computesOne).not.toHaveBeenCalled();
  return { first, lane, behind };
}

describe('answers', () => {
  test.each([
    ['a named list with variables', (): object => ({ query: QUERY, variables: { limit: 50 } })],
    ['the operation named, variables null', (): object => ({ query: QUERY, variables: null, operationName: 'LanePage' })],
    ['no variables at all', (): object => ({ query: '{ requirements { data { id title } } }' })],
    ['one requirement', (): object => ({ query: DETAIL.replace('$ID', JSON.stringify(ids[0])) })],
  ] as const)('%s: the lane answers what Apollo answers', async (_name, body) => {
    const { first, lane, behind } = await laneAndBehind(body());
    expect(lane.status).toBe(200);
    expect(lane.text).toBe(behind.text);
    expect(lane.text).toBe(first.text);
    expect(JSON.parse(lane.text).data).toBeDefined();
    expect(lane.text.endsWith('}\n')).toBe(true);
    expect(comparable(lane)).toEqual(comparable(behind));
    expect(Object.keys(lane.headers).sort()).toEqual(Object.keys(behind.headers).sort());
    expect(lane.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(lane.headers['content-length']).toBe(String(Buffer.byteLength(lane.text)));
    expect(lane.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('for the admin key too (no plan), with a given X-Request-Id echoed and the answer counted in /metrics under Apollo’s label', async () => {
    const body = { query: QUERY, variables: { limit: 2 } };
    const { lane, behind } = await laneAndBehind(body, ADMIN_KEY);
    expect(lane.text).toBe(behind.text);
    expect(comparable(lane)).toEqual(comparable(behind));

    const before = await metricValue('/graphql:other');
    const behindTheLane = apollo();
    const traced = await post(body, { auth: ADMIN_KEY, headers: { 'x-request-id': 'lane-trace.gql' } });
    expect(behindTheLane).not.toHaveBeenCalled();
    expect(traced.headers['x-request-id']).toBe('lane-trace.gql');
    expect(await metricValue('/graphql:other')).toBe(before + 1);
    // An unnamed operation: Apollo's label for it, from the lane too.
    const unnamed = { query: '{ requirements(limit: 1) { pagination { total } } }' };
    await post(unnamed); // computed and kept, by Apollo
    behindTheLane.mockClear();
    const anonymous = await metricValue('/graphql:anonymous');
    await post(unnamed);
    expect(behindTheLane).not.toHaveBeenCalled();
    expect(await metricValue('/graphql:anonymous')).toBe(anonymous + 1);
  });

  test('a write through the gateway, and a change committed in SQL, are seen by the very next read', async () => {
    const id = ids[0];
    const body = { query: QUERY, variables: { limit: 50 } };
    const mine = async () => JSON.parse((await post(body)).text).data.requirements.data.find((r: any) => r.id === id);
    const detail = { query: DETAIL.replace('$ID', JSON.stringify(id)) };
    const one = async () => JSON.parse((await post(detail)).text).data.requirement;
    await mine();
    await one();
    const behindTheLane = apollo();
    const lists = jest.spyOn(gw.services.requirements, 'list');
    const gets = jest.spyOn(gw.services.requirements, 'get');
    const status = (await one()).status;
    expect(gets).not.toHaveBeenCalled();

    const next = status === 'IN_PROGRESS' ? 'completed' : 'in-progress';
    await okJson(gw, `/v1/requirements/${id}`, { method: 'PUT', json: { status: next }, auth: key });
    const expected = next.toUpperCase().replace('-', '_');
    expect((await mine()).status).toBe(expected);
    expect((await one()).status).toBe(expected);
    // Both missed (the kept answers were older than the write): computed by the lane, and kept.
    expect(lists).toHaveBeenCalledTimes(1);
    expect(gets).toHaveBeenCalledTimes(1);
    expect((await one()).status).toBe(expected);
    expect(gets).toHaveBeenCalledTimes(1); // kept again, and answered by the lane

    await sqlOf(gw)(`update requirements set title = 'Renamed behind the GraphQL lane' where id = ?`, [id]);
    expect((await one()).title).toBe('Renamed behind the GraphQL lane');
    expect((await mine()).title).toBe('Renamed behind the GraphQL lane');
    expect(behindTheLane).not.toHaveBeenCalled();
  });
});

describe('what the lane hands on', () => {
  const body = { query: QUERY, variables: { limit: 3 } };
  beforeAll(async () => {
    await post(body);
  });

  test('invalid JSON, a JSON string, a batch: Apollo’s (and express’s) own 400, the same as when the lane never read the body', async () => {
    for (const text of ['{"query": "{ requirements { pagination { total } } "', '"{ requirements { pagination { total } } }"', `[${JSON.stringify(body)}]`, `\uFEFF{"query"`]) {
      const behindTheLane = apollo();
      const read = await post(text);
      const notRead = await post(text, { chunked: true }); // no Content-Length: the lane does not take it
      expect(read.status).toBe(400);
      expect(read.text).toBe(notRead.text);
      expect(comparable(read)).toEqual(comparable(notRead));
      expect(JSON.parse(read.text).errors[0].extensions.code).toMatch(/VALIDATION_ERROR|BAD_REQUEST/);
      // A batch reaches Apollo (which refuses it); a body that is not JSON stops at express's parser.
      expect(behindTheLane).toHaveBeenCalledTimes(text.startsWith('[') ? 2 : 0);
      jest.restoreAllMocks();
    }
    // A byte order mark is dropped as express's parser drops it: the same answer as without one.
    const bom = await post(`\uFEFF${JSON.stringify(body)}`);
    expect(bom.status).toBe(200);
    expect(JSON.parse(bom.text)).toEqual(JSON.parse((await post(body)).text));
  });

  test('a mutation, a result with an error (another caller without read:audits), a refused key, no key, a key without the permission: Apollo answers', async () => {
    const behindTheLane = apollo();
    const created = await post({ query: 'mutation { createRequirement(input: { title: "Made past the lane", framework: GDPR, priority: HIGH, acceptanceCriteria: ["x"] }) { id } }' });
    expect(created.status).toBe(200);
    expect(behindTheLane).toHaveBeenCalledTimes(1);

    const other = await issueKey(gw, ['read:requirements']);
    const theirs = await post(body, { auth: other });
    expect(theirs.status).toBe(200);
    expect(JSON.parse(theirs.text).data.requirements.data).toHaveLength(3);
    expect(behindTheLane).toHaveBeenCalledTimes(2);

    const refused = await post(body, { auth: 'sk_not_a_key' });
    const refusedUnread = await post(body, { auth: 'sk_not_a_key', chunked: true });
    expect(refused.status).toBe(refusedUnread.status);
    expect(refused.text).toBe(refusedUnread.text);
    expect(comparable(refused)).toEqual(comparable(refusedUnread));
    expect(JSON.parse(refused.text).errors[0].extensions.code).toBe('AUTHENTICATION_ERROR');

    const anonymous = await post(body, { auth: null });
    expect(JSON.parse(anonymous.text).errors[0].extensions.code).toBe('AUTHENTICATION_ERROR');

    const noRead = await issueKey(gw, ['read:compliance']);
    const first = await post(body, { auth: noRead });
    const again = await post(body, { auth: noRead });
    expect(JSON.parse(first.text).errors[0].extensions.code).toBe('AUTHORIZATION_ERROR');
    expect(again.text).toBe(first.text); // errors are never kept: Apollo again
    expect(behindTheLane).toHaveBeenCalledTimes(7);
  });

  test('an Origin, another Accept, a CSRF preflight header, extensions in the body: Apollo answers, in its own way', async () => {
    const behindTheLane = apollo();
    const withOrigin = await post(body, { headers: { origin: 'https://elsewhere.example' } });
    expect(withOrigin.status).toBe(200);
    expect(withOrigin.headers['access-control-allow-origin']).toBe('https://elsewhere.example');
    const graphqlResponse = await post(body, { headers: { accept: 'application/graphql-response+json' } });
    expect(graphqlResponse.headers['content-type']).toBe('application/graphql-response+json; charset=utf-8');
    const preflight = await post(body, { headers: { 'apollo-require-preflight': 'true' } });
    expect(preflight.status).toBe(200);
    const extensions = await post({ ...body, extensions: {} });
    expect(extensions.status).toBe(200);
    expect(behindTheLane).toHaveBeenCalledTimes(4);
    expect(graphqlResponse.text).toBe(withOrigin.text);
  });
});

describe('charging', () => {
  /** The plan's count for `auth`, as REST shows it (the read itself counts one). */
  const remaining = async (auth: string) => Number((await gw.request('/v1/requirements/' + ids[1], { auth })).headers.get('x-ratelimit-remaining'));

  test('each root field counts once on the plan, whichever way the operation is served', async () => {
    const spender = await issueKey(gw, ['read:requirements']);
    const one = { query: 'query One($limit: Int) { requirements(limit: $limit) { data { id title } pagination { total } } }', variables: { limit: 1 } };
    const two = { query: 'query Two { a: requirements(limit: 1) { pagination { total } } b: requirements(limit: 2) { pagination { total } } }' };
    await post(one, { auth: spender });
    await post(two, { auth: spender });
    const start = await remaining(spender);
    const behindTheLane = apollo();
    await post(one, { auth: spender }); // the lane: one root field
    await post(two, { auth: spender }); // the lane: two
    expect(behindTheLane).not.toHaveBeenCalled();
    expect(await remaining(spender)).toBe(start - 4);
    await post(one, { auth: spender, headers: NOT_FOR_THE_LANE }); // Apollo
    await post(two, { auth: spender, headers: NOT_FOR_THE_LANE }); // Apollo
    expect(behindTheLane).toHaveBeenCalledTimes(2);
    expect(await remaining(spender)).toBe(start - 8);
    // Missed by the lane's look-up: admitted and executed by the lane (the pipeline's response cache answers).
    jest.spyOn(gw.services.readModel, 'kept').mockResolvedValueOnce(undefined).mockResolvedValueOnce(undefined);
    await post(one, { auth: spender });
    await post(two, { auth: spender });
    expect(behindTheLane).toHaveBeenCalledTimes(2);
    expect(await remaining(spender)).toBe(start - 12);
  });

  test('over the plan, Apollo refuses in its own words (429, Retry-After) and nothing the lane counted stays', async () => {
    const spender = await issueKey(gw, ['read:requirements']);
    const one = { query: 'query One($limit: Int) { requirements(limit: $limit) { data { id title } pagination { total } } }', variables: { limit: 1 } };
    const two = { query: 'query Two { a: requirements(limit: 1) { pagination { total } } b: requirements(limit: 2) { pagination { total } } }' };
    await post(one, { auth: spender });
    await post(two, { auth: spender });
    let left = await remaining(spender);
    // Most of the hour's plan in tRPC batches (each call counts one), the end one operation at a time.
    const call = encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [i, { limit: 1 }]))));
    while (left > 103) {
      const batch = await gw.request(`/trpc/${Array(100).fill('compliance.requirements').join(',')}?batch=1&input=${call}`, { auth: spender });
      expect(batch.status).toBe(200);
      left = await remaining(spender);
    }
    const behindTheLane = apollo();
    while (left > 2) {
      expect((await post(one, { auth: spender })).status).toBe(200);
      left = await remaining(spender);
    }
    expect(behindTheLane).not.toHaveBeenCalled();
    // One count left: two root fields are one too many. The lane takes back what it counted; Apollo counts and refuses.
    expect(await post(one, { auth: spender })).toMatchObject({ status: 200 });
    expect(behindTheLane).not.toHaveBeenCalled();
    const refused = await post(two, { auth: spender });
    expect(behindTheLane).toHaveBeenCalledTimes(1);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const err = JSON.parse(refused.text);
    expect(err.data).toBeUndefined();
    expect(err.errors[0].extensions.code).toBe('RATE_LIMIT_EXCEEDED');
    const again = await post(one, { auth: spender });
    expect(again.status).toBe(429);
    expect(behindTheLane).toHaveBeenCalledTimes(2);
  });
});

async function metricValue(route: string): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('http_requests_total{') && l.includes(`route="${route}"`) && l.includes('method="POST"') && l.includes('status="200"'));
  return line ? Number(line.split(' ').pop()) : 0;
}
