import { createHash, randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { ADMIN_KEY, issueKey, startGateway, useGateway, type TestGateway } from '../helpers/gateway';

/**
 * Issue 31, item 2: GraphQL queries over GET (urql's default, Apollo Client's `useGETForQueries`)
 * are taken when they carry a header a browser cannot send cross-site without a preflight
 * (`Authorization`, `apollo-require-preflight`, `x-apollo-operation-name`, `graphql-preflight`), and
 * go through the same pipeline as POST. Automatic persisted queries (APQ) work over GET and POST,
 * with a bounded store shared through Redis when there is one.
 */
const gw = useGateway();

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const bearer = (key: string = ADMIN_KEY) => ({ authorization: `Bearer ${key}` });

interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/** GET /graphql with the given search parameters (objects as JSON, as clients send them). */
async function get(g: TestGateway, params: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Answer> {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) search.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  const res = await g.request(`/graphql?${search}`, { auth: null, headers });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

async function post(g: TestGateway, body: object, headers: Record<string, string> = bearer()): Promise<Answer> {
  const res = await g.request('/graphql', {
    method: 'POST',
    auth: null,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

const apq = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });
/** A query text no other run has registered (Redis keeps texts across runs). */
const freshQuery = () => `query Fresh { v_${randomUUID().replace(/-/g, '')}: viewer { name } }`;

describe('GET and the CSRF rule', () => {
  test('a query over GET with the key in Authorization is answered', async () => {
    const { status, body } = await get(gw, { query: '{ viewer { name } }' }, bearer());
    expect(status).toBe(200);
    expect(body).toEqual({ data: { viewer: { name: 'admin' } } });
  });

  test.each(['apollo-require-preflight', 'x-apollo-operation-name', 'graphql-preflight'])('a GET with %s (and no key) is taken', async (header) => {
    const { status, body } = await get(gw, { query: '{ __typename }' }, { [header]: 'anything' });
    expect(status).toBe(200);
    expect(body).toEqual({ data: { __typename: 'Query' } });
  });

  test('a GET with none of those headers is refused as a possible CSRF, naming the headers that would do', async () => {
    const { status, body } = await get(gw, { query: '{ __typename }' });
    expect(status).toBe(400);
    expect(body.data).toBeUndefined();
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(body.errors[0].message).toMatch(/Cross-Site Request Forgery/);
    for (const header of ['authorization', 'apollo-require-preflight', 'x-apollo-operation-name', 'graphql-preflight'])
      expect(body.errors[0].message).toContain(header);
  });

  test('an empty Authorization or preflight header does not count', async () => {
    expect((await get(gw, { query: '{ __typename }' }, { 'graphql-preflight': '' })).status).toBe(400);
  });

  test('a form-encoded POST (what a cross-site form sends) is still refused', async () => {
    const res = await fetch(`${gw.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'query=%7B__typename%7D',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).errors[0].message).toMatch(/Cross-Site Request Forgery/);
  });

  test('from a browser on another origin: the preflight allows the header, then the GET is answered with CORS headers', async () => {
    const origin = 'https://app.example';
    const preflight = await fetch(`${gw.url}/graphql`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,graphql-preflight' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    const answered = await get(gw, { query: '{ viewer { name } }' }, { origin, ...bearer() });
    expect(answered.status).toBe(200);
    expect(answered.headers.get('access-control-allow-origin')).toBe(origin);
    expect(answered.body.data.viewer.name).toBe('admin');
  });

  test('a mutation over GET is refused with 405 and Allow: POST', async () => {
    const mutation = 'mutation { clearCache { __typename } }';
    const refused = await get(gw, { query: mutation }, bearer());
    expect(refused.status).toBe(405);
    expect(refused.headers.get('allow')).toBe('POST');
    expect(refused.body.errors[0].message).toBe('GET requests only support query operations, not mutation operations');
    expect(refused.body.data).toBeUndefined();
  });

  test('GET goes through the same pipeline: permissions, the depth limit, the input-depth guard, the cost limit', async () => {
    const noRights = await issueKey(gw, ['read:requirements']);
    const denied = await get(gw, { query: '{ apiKeys { id } }' }, bearer(noRights));
    expect(denied.body.errors[0].extensions.code).toBe('AUTHORIZATION_ERROR');

    const tooDeep = `{ ${'a { '.repeat(14)}b${' }'.repeat(14)} }`;
    const overGet = await get(gw, { query: tooDeep }, bearer());
    const overPost = await post(gw, { query: tooDeep });
    expect(overGet.status).toBe(400);
    expect(overGet.body).toEqual(overPost.body);
    expect(JSON.stringify(overGet.body.errors)).toMatch(/depth limit of 12/i);

    const nested = `{ requirements(filter: ${'{a:'.repeat(100)}1${'}'.repeat(100)}) { pagination { total } } }`;
    const nestedGet = await get(gw, { query: nested }, bearer());
    expect(nestedGet.status).toBe(400);
    expect(nestedGet.body.errors[0].extensions.code).toBe('GRAPHQL_INPUT_TOO_DEEP');

    const nestedFields = 'data { id title description status findings { id title severity status evidence } frameworkInfo { id name } } pagination { total }';
    const costly = `{ ${Array.from({ length: 20 }, (_, i) => `r${i}: requirements(limit: 500) { ${nestedFields} }`).join(' ')} }`;
    const costGet = await get(gw, { query: costly }, bearer());
    const costPost = await post(gw, { query: costly });
    expect(costGet.status).toBe(400);
    expect(costGet.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    expect(costGet.body).toEqual(costPost.body);
  });

  test('GET and APQ by hash are charged on the plan like POST: each root field counts once', async () => {
    const spender = await issueKey(gw, ['read:requirements']);
    /** The plan's count for the key, as REST shows it (the read itself counts one). */
    const remaining = async () => Number((await gw.request('/v1/requirements?limit=1', { auth: spender })).headers.get('x-ratelimit-remaining'));
    const two = 'query Two { a: requirements(limit: 1) { pagination { total } } b: requirements(limit: 2) { pagination { total } } }';
    const start = await remaining();
    expect((await get(gw, { query: two }, bearer(spender))).status).toBe(200);
    expect(await remaining()).toBe(start - 1 - 2);
    const hash = sha256(two);
    expect((await post(gw, { query: two, extensions: apq(hash) }, bearer(spender))).status).toBe(200);
    expect((await get(gw, { extensions: apq(hash) }, bearer(spender))).status).toBe(200);
    expect(await remaining()).toBe(start - 2 - 6);
  });

  test('variables and operationName travel in the search parameters', async () => {
    const query = 'query A { a: __typename } query B($limit: Int) { requirements(limit: $limit) { data { id } } }';
    const { status, body } = await get(gw, { query, operationName: 'B', variables: { limit: 1 } }, bearer());
    expect(status).toBe(200);
    expect(Array.isArray(body.data.requirements.data)).toBe(true);
  });
});

describe('automatic persisted queries', () => {
  test('over POST: an unknown hash is PERSISTED_QUERY_NOT_FOUND, the text with its hash registers it, the hash alone then runs', async () => {
    const query = freshQuery();
    const hash = sha256(query);
    const unknown = await post(gw, { extensions: apq(hash) });
    expect(unknown.status).toBe(200);
    expect(unknown.body.errors).toEqual([{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }]);
    const registered = await post(gw, { query, extensions: apq(hash) });
    expect(registered.status).toBe(200);
    expect(Object.values(registered.body.data)).toEqual([{ name: 'admin' }]);
    const byHash = await post(gw, { extensions: apq(hash) });
    expect(byHash.body).toEqual(registered.body);
  });

  test('over GET: the same, with extensions as JSON in the search parameters', async () => {
    const query = freshQuery();
    const hash = sha256(query);
    const unknown = await get(gw, { extensions: apq(hash) }, bearer());
    expect(unknown.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const registered = await get(gw, { query, extensions: apq(hash) }, bearer());
    expect(registered.status).toBe(200);
    const byHash = await get(gw, { extensions: apq(hash), operationName: 'Fresh' }, bearer());
    expect(byHash.status).toBe(200);
    expect(byHash.body).toEqual(registered.body);
    // Registered over GET, found over POST: one store.
    expect((await post(gw, { extensions: apq(hash) })).body).toEqual(registered.body);
  });

  test('a hash-only GET still needs a preflight header, and a hash-only mutation over GET is a 405', async () => {
    const mutation = `mutation M { clearCache { __typename } m_${randomUUID().replace(/-/g, '')}: __typename }`;
    const hash = sha256(mutation);
    expect((await get(gw, { extensions: apq(hash) })).status).toBe(400);
    const created = await post(gw, { query: mutation, extensions: apq(hash) });
    expect(created.body.data.clearCache).toEqual({ __typename: 'MessageResult' });
    const overGet = await get(gw, { extensions: apq(hash) }, bearer());
    expect(overGet.status).toBe(405);
  });

  test('a hash that does not match the text is refused (400 VALIDATION_ERROR) and nothing is registered', async () => {
    const query = freshQuery();
    const wrong = sha256(query + ' ');
    for (const answer of [await post(gw, { query, extensions: apq(wrong) }), await get(gw, { query, extensions: apq(wrong) }, bearer())]) {
      expect(answer.status).toBe(400);
      expect(answer.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
      expect(answer.body.errors[0].message).toMatch(/does not match the SHA-256 of the query text/);
    }
    expect((await post(gw, { extensions: apq(wrong) })).body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  test.each([
    ['another version', { persistedQuery: { version: 2, sha256Hash: 'a'.repeat(64) } }, /version must be 1/],
    ['a hash that is not 64 hex digits', { persistedQuery: { version: 1, sha256Hash: 'x'.repeat(10_000) } }, /64 lowercase hex/],
    ['no object', { persistedQuery: 'abc' }, /must be an object/],
  ])('%s is a 400 VALIDATION_ERROR', async (_what, extensions, message) => {
    const answer = await post(gw, { extensions });
    expect(answer.status).toBe(400);
    expect(answer.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
    expect(answer.body.errors[0].message).toMatch(message);
  });

  test('a text refused before it runs (over the cost limit, over the depth limit) is not registered', async () => {
    const fields = 'data { id title description status findings { id title severity status evidence } frameworkInfo { id name } } pagination { total }';
    const costly = `query Costly { ${Array.from({ length: 20 }, (_, i) => `r${i}: requirements(limit: 500) { ${fields} }`).join(' ')} } # ${randomUUID()}`;
    const tooDeep = `{ ${'a { '.repeat(14)}b${' }'.repeat(14)} } # ${randomUUID()}`;
    for (const query of [costly, tooDeep]) {
      const hash = sha256(query);
      const refused = await post(gw, { query, extensions: apq(hash) });
      expect(refused.status).toBe(400);
      expect((await post(gw, { extensions: apq(hash) })).body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    }
  });
});

describe('the store is bounded', () => {
  let small: TestGateway;
  beforeAll(async () => {
    small = await startGateway({ GRAPHQL_APQ_CACHE_BYTES: '600' });
  }, 180_000);
  afterAll(() => small?.close());

  test('beyond its bytes the least recently used texts go, and their clients get PERSISTED_QUERY_NOT_FOUND again', async () => {
    const texts = Array.from({ length: 8 }, () => freshQuery() + ' '.repeat(60)); // ≈ 120 bytes each
    for (const query of texts) expect((await post(small, { query, extensions: apq(sha256(query)) })).status).toBe(200);
    const hits = [];
    for (const query of texts) hits.push((await post(small, { extensions: apq(sha256(query)) })).body.errors?.[0]?.extensions?.code ?? 'hit');
    expect(hits.slice(0, 3)).toEqual(['PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_NOT_FOUND']);
    expect(hits.slice(-4)).toEqual(['hit', 'hit', 'hit', 'hit']);
  });

  test('GRAPHQL_APQ_CACHE_BYTES=0 turns APQ off: PERSISTED_QUERY_NOT_SUPPORTED, and plain queries still run', async () => {
    const off = await startGateway({ GRAPHQL_APQ_CACHE_BYTES: '0' });
    try {
      const query = freshQuery();
      const answer = await post(off, { query, extensions: apq(sha256(query)) });
      expect(answer.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
      expect((await post(off, { query })).status).toBe(200);
    } finally {
      await off.close();
    }
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
if (redisUrl) {
  describe('shared through Redis (TEST_REDIS_URL)', () => {
    let a: TestGateway;
    let b: TestGateway;
    let redis: Redis;
    beforeAll(async () => {
      a = await startGateway({ REDIS_URL: redisUrl, GRAPHQL_APQ_TTL_SECONDS: '120' });
      b = await startGateway({ REDIS_URL: redisUrl });
      redis = new Redis(redisUrl);
    }, 300_000);
    afterAll(async () => {
      redis?.disconnect();
      await a?.close();
      await b?.close();
    });

    test('a text registered on one gateway runs by its hash on another, and lives in Redis with its time to live', async () => {
      const query = freshQuery();
      const hash = sha256(query);
      expect((await get(b, { extensions: apq(hash) }, bearer())).body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
      const registered = await post(a, { query, extensions: apq(hash) });
      expect(registered.status).toBe(200);
      // Apollo writes the text once the operation is admitted, without waiting for the write.
      let stored: string | null = null;
      for (let i = 0; i < 50 && stored === null; i++) {
        stored = await redis.get(`gql:apq:${hash}`);
        if (stored === null) await new Promise((r) => setTimeout(r, 20));
      }
      expect(stored).toBe(query);
      const ttl = await redis.ttl(`gql:apq:${hash}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(120);
      const onB = await get(b, { extensions: apq(hash) }, bearer());
      expect(onB.status).toBe(200);
      expect(onB.body).toEqual(registered.body);
    });

    test('a text in Redis that does not hash to its key, or is nested too deep to parse safely, is not served', async () => {
      const query = freshQuery();
      const hash = sha256(query);
      await redis.set(`gql:apq:${hash}`, '{ apiKeys { id } }', 'EX', 60);
      expect((await post(b, { extensions: apq(hash) })).body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
      const deep = `{ requirements(filter: { search: ${'['.repeat(1700)}"x"${']'.repeat(1700)} }) { pagination { total } } } # ${randomUUID()}`;
      await redis.set(`gql:apq:${sha256(deep)}`, deep, 'EX', 60);
      const answer = await post(b, { extensions: apq(sha256(deep)) });
      expect(answer.status).toBe(200);
      expect(answer.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    });
  });
}
