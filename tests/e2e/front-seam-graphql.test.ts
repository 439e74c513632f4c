/**
 * The front's seam (gateway/front/seam.ts) answers a repeated `POST /graphql` whose result the
 * response cache keeps, without express and Apollo. What it answers must be byte for byte and header
 * for header what Apollo answers (this test fails when an Apollo upgrade changes its answers); the
 * operation must be charged as Apollo's admission charges it; a committed change must be seen by the
 * very next read; and whatever it does not answer reaches Apollo with its body, answered in its words.
 */
import http from 'node:http';
import { ApolloServer } from '@apollo/server';
import { ADMIN_KEY, issueKey, okJson, sqlOf, useGateway } from '../helpers/gateway';

const gw = useGateway();
afterEach(() => jest.restoreAllMocks());

const QUERY = 'query SeamPage($limit: Int) { requirements(limit: $limit) { data { id title status findings { id title } } pagination { total } } }';
const DETAIL = 'query { requirement(id: $ID) { id title status } }';

let key: string;
let ids: string[];
beforeAll(async () => {
  ids = [];
  for (const [i, framework] of ['gdpr', 'soc2'].entries()) {
    ids.push(
      (
        await okJson(gw, '/v1/requirements', {
          method: 'POST',
          json: { title: `GraphQL seam requirement ${i}`, framework, priority: 'high', acceptanceCriteria: ['kept'] },
        })
      ).id,
    );
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

/** Apollo's server, spied on: it runs for every request the seam hands on, and for no other. */
const apollo = () => jest.spyOn(ApolloServer.prototype, 'executeHTTPGraphQLRequest').mockClear();

/** A header that makes Apollo's answer no different, and the seam leave the request to Apollo. */
const NOT_FOR_THE_SEAM = { 'apollo-require-preflight': 'true' };

/**
 * The same request answered by the seam and by Apollo: the seam does not take a request with a CSRF
 * preflight header, so Apollo answers it from the same kept result through its whole path.
 */
async function seamAndBehind(body: object, auth: string = key) {
  jest.restoreAllMocks();
  const first = await post(body, { auth });
  expect(first.status).toBe(200);
  const computes = jest.spyOn(gw.services.requirements, 'list');
  const computesOne = jest.spyOn(gw.services.requirements, 'get');
  const behindTheSeam = apollo();
  const seam = await post(body, { auth });
  expect(behindTheSeam).not.toHaveBeenCalled();
  const behind = await post(body, { auth, headers: NOT_FOR_THE_SEAM });
  expect(behindTheSeam).toHaveBeenCalledTimes(1);
  expect(computes).not.toHaveBeenCalled();
  expect(computesOne).not.toHaveBeenCalled();
  return { first, seam, behind };
}

describe('answers', () => {
  test.each([
    ['a named list with variables', (): object => ({ query: QUERY, variables: { limit: 50 } })],
    ['the operation named, variables null', (): object => ({ query: QUERY, variables: null, operationName: 'SeamPage' })],
    ['no variables at all', (): object => ({ query: '{ requirements { data { id title } } }' })],
    ['one requirement', (): object => ({ query: DETAIL.replace('$ID', JSON.stringify(ids[0])) })],
  ] as const)('%s: the seam answers what Apollo answers', async (_name, body) => {
    const { first, seam, behind } = await seamAndBehind(body());
    expect(seam.status).toBe(200);
    expect(seam.text).toBe(behind.text);
    expect(seam.text).toBe(first.text);
    expect(JSON.parse(seam.text).data).toBeDefined();
    expect(seam.text.endsWith('}\n')).toBe(true);
    expect(comparable(seam)).toEqual(comparable(behind));
    expect(Object.keys(seam.headers).sort()).toEqual(Object.keys(behind.headers).sort());
    expect(seam.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(seam.headers['content-length']).toBe(String(Buffer.byteLength(seam.text)));
    expect(seam.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('for the admin key too (no plan), with a given X-Request-Id echoed and the answer counted in /metrics under Apollo’s label', async () => {
    const body = { query: QUERY, variables: { limit: 2 } };
    const { seam, behind } = await seamAndBehind(body, ADMIN_KEY);
    expect(seam.text).toBe(behind.text);
    expect(comparable(seam)).toEqual(comparable(behind));

    const before = await metricValue('/graphql:other');
    const behindTheSeam = apollo();
    const traced = await post(body, { auth: ADMIN_KEY, headers: { 'x-request-id': 'seam-trace.gql' } });
    expect(behindTheSeam).not.toHaveBeenCalled();
    expect(traced.headers['x-request-id']).toBe('seam-trace.gql');
    expect(await metricValue('/graphql:other')).toBe(before + 1);
    // An unnamed operation: Apollo's label for it, from the seam too.
    const unnamed = { query: '{ requirements(limit: 1) { pagination { total } } }' };
    await post(unnamed); // computed and kept, by Apollo
    behindTheSeam.mockClear();
    const anonymous = await metricValue('/graphql:anonymous');
    await post(unnamed);
    expect(behindTheSeam).not.toHaveBeenCalled();
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
    const behindTheSeam = apollo();
    const lists = jest.spyOn(gw.services.requirements, 'list');
    const gets = jest.spyOn(gw.services.requirements, 'get');
    const status = (await one()).status;
    expect(gets).not.toHaveBeenCalled();

    const next = status === 'IN_PROGRESS' ? 'completed' : 'in-progress';
    await okJson(gw, `/v1/requirements/${id}`, { method: 'PUT', json: { status: next }, auth: key });
    const expected = next.toUpperCase().replace('-', '_');
    expect((await mine()).status).toBe(expected);
    expect((await one()).status).toBe(expected);
    // Both missed (the kept answers were older than the write): computed by Apollo, and kept.
    expect(lists).toHaveBeenCalledTimes(1);
    expect(gets).toHaveBeenCalledTimes(1);
    expect(behindTheSeam).toHaveBeenCalledTimes(2);
    expect((await one()).status).toBe(expected);
    expect(gets).toHaveBeenCalledTimes(1); // kept again, and answered by the seam
    expect(behindTheSeam).toHaveBeenCalledTimes(2);

    await sqlOf(gw)(`update requirements set title = 'Renamed behind the GraphQL seam' where id = ?`, [id]);
    expect((await one()).title).toBe('Renamed behind the GraphQL seam');
    expect((await mine()).title).toBe('Renamed behind the GraphQL seam');
    expect(behindTheSeam).toHaveBeenCalledTimes(4); // the two misses after the change in SQL
  });
});

describe('what the seam hands on', () => {
  const body = { query: QUERY, variables: { limit: 3 } };
  beforeAll(async () => {
    await post(body);
  });

  test('invalid JSON, a JSON string, a batch: the same 400 whichever way the front reads the body', async () => {
    for (const text of [
      '{"query": "{ requirements { pagination { total } } "',
      '"{ requirements { pagination { total } } }"',
      `[${JSON.stringify(body)}]`,
      `\uFEFF{"query"`,
    ]) {
      const behindTheSeam = apollo();
      const read = await post(text);
      const notRead = await post(text, { chunked: true }); // no Content-Length: read by express's parser in the front
      expect(read.status).toBe(400);
      expect(read.text).toBe(notRead.text);
      expect(comparable(read)).toEqual(comparable(notRead));
      expect(JSON.parse(read.text).errors[0].extensions.code).toMatch(/VALIDATION_ERROR|BAD_REQUEST/);
      // A batch reaches Apollo (which refuses it); a body that is not JSON is refused at the front, as it reads it.
      expect(behindTheSeam).toHaveBeenCalledTimes(text.startsWith('[') ? 2 : 0);
      jest.restoreAllMocks();
    }
    // A byte order mark is dropped as express's parser drops it: the same answer as without one.
    const bom = await post(`\uFEFF${JSON.stringify(body)}`);
    expect(bom.status).toBe(200);
    expect(JSON.parse(bom.text)).toEqual(JSON.parse((await post(body)).text));
  });

  test('a mutation, a result with an error (another caller without read:audits), a refused key, no key, a key without the permission: Apollo answers', async () => {
    const behindTheSeam = apollo();
    const created = await post({
      query: 'mutation { createRequirement(input: { title: "Made past the seam", framework: GDPR, priority: HIGH, acceptanceCriteria: ["x"] }) { id } }',
    });
    expect(created.status).toBe(200);
    expect(behindTheSeam).toHaveBeenCalledTimes(1);

    const other = await issueKey(gw, ['read:requirements']);
    const theirs = await post(body, { auth: other });
    expect(theirs.status).toBe(200);
    expect(JSON.parse(theirs.text).data.requirements.data).toHaveLength(3);
    expect(behindTheSeam).toHaveBeenCalledTimes(2);

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
    expect(behindTheSeam).toHaveBeenCalledTimes(7);
  });

  test('an Origin, another Accept, a CSRF preflight header, extensions in the body: Apollo answers, in its own way', async () => {
    const behindTheSeam = apollo();
    const withOrigin = await post(body, { headers: { origin: 'https://elsewhere.example' } });
    expect(withOrigin.status).toBe(200);
    expect(withOrigin.headers['access-control-allow-origin']).toBe('https://elsewhere.example');
    const graphqlResponse = await post(body, { headers: { accept: 'application/graphql-response+json' } });
    expect(graphqlResponse.headers['content-type']).toBe('application/graphql-response+json; charset=utf-8');
    const preflight = await post(body, { headers: { 'apollo-require-preflight': 'true' } });
    expect(preflight.status).toBe(200);
    const extensions = await post({ ...body, extensions: {} });
    expect(extensions.status).toBe(200);
    expect(behindTheSeam).toHaveBeenCalledTimes(4);
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
    const behindTheSeam = apollo();
    await post(one, { auth: spender }); // the seam: one root field
    await post(two, { auth: spender }); // the seam: two
    expect(behindTheSeam).not.toHaveBeenCalled();
    expect(await remaining(spender)).toBe(start - 4);
    await post(one, { auth: spender, headers: NOT_FOR_THE_SEAM }); // Apollo
    await post(two, { auth: spender, headers: NOT_FOR_THE_SEAM }); // Apollo
    expect(behindTheSeam).toHaveBeenCalledTimes(2);
    expect(await remaining(spender)).toBe(start - 8);
    // Missed by the seam's look-up: Apollo answers (the pipeline's response cache has the answer).
    jest.spyOn(gw.services.readModel, 'kept').mockResolvedValueOnce(undefined).mockResolvedValueOnce(undefined);
    await post(one, { auth: spender });
    await post(two, { auth: spender });
    expect(behindTheSeam).toHaveBeenCalledTimes(4);
    expect(await remaining(spender)).toBe(start - 12);
  });

  test('over the plan, Apollo refuses in its own words (429, Retry-After) and nothing the seam counted stays', async () => {
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
    const behindTheSeam = apollo();
    while (left > 2) {
      expect((await post(one, { auth: spender })).status).toBe(200);
      left = await remaining(spender);
    }
    expect(behindTheSeam).not.toHaveBeenCalled();
    // One count left: two root fields are one too many. The seam counts nothing; Apollo counts and refuses.
    expect(await post(one, { auth: spender })).toMatchObject({ status: 200 });
    expect(behindTheSeam).not.toHaveBeenCalled();
    const refused = await post(two, { auth: spender });
    expect(behindTheSeam).toHaveBeenCalledTimes(1);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const err = JSON.parse(refused.text);
    expect(err.data).toBeUndefined();
    expect(err.errors[0].extensions.code).toBe('RATE_LIMIT_EXCEEDED');
    const again = await post(one, { auth: spender });
    expect(again.status).toBe(429);
    expect(behindTheSeam).toHaveBeenCalledTimes(2);
  });
});

async function metricValue(route: string): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('http_requests_total{') && l.includes(`route="${route}"`) && l.includes('method="POST"') && l.includes('status="200"'));
  return line ? Number(line.split(' ').pop()) : 0;
}
