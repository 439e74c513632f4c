/**
 * The front's seam (gateway/front/seam.ts) answers REST and tRPC reads the read model keeps, without
 * express or tRPC. Whatever it answers must be byte for byte and header for header what they answer
 * for the same request (this is the test that fails when an upgrade of express or tRPC changes their
 * answers); the plan limit must count each request once, whichever way it is served; and a
 * committed change must be seen by the very next read.
 */
import { ADMIN_KEY, sqlOf, useGateway, okJson } from '../helpers/gateway';
import { seedRequirements, comparable, expressRouter, planCount, readAnswer, type Answer } from '../helpers/seam';

const gw = useGateway();
afterEach(() => jest.restoreAllMocks());

let key: string;
let ids: string[];
beforeAll(async () => {
  ids = await seedRequirements(gw, 'Seam requirement', 'kept');
  key = (await okJson(gw, '/v1/auth/api-keys', { method: 'POST', json: { name: 'seam reader', permissions: ['read:requirements', 'write:requirements'] } }))
    .key;
});

const read = (path: string, auth: string | null = key, headers: Record<string, string> = {}): Promise<Answer> => readAnswer(gw, path, auth, headers);

/**
 * The same request answered by the seam and by express (or tRPC), both from the kept answer: the
 * seam is told once that nothing is kept, which hands the request on exactly as a miss does; express
 * then reads the same kept answer through its whole path. Each is counted once on the plan limit.
 */
async function seamAndBehind(path: string, auth: string | null = key) {
  jest.restoreAllMocks();
  const readModel = gw.services.readModel;
  await read(path, auth); // computed and kept
  const express = expressRouter();
  const computes = jest.spyOn(readModel, 'set');
  const counted = planCount();
  const seam = await read(path, auth);
  expect(express).not.toHaveBeenCalled();
  expect(computes).not.toHaveBeenCalled(); // the kept answer
  expect(counted()).toBe(auth === key ? 1 : 0);
  const misses = jest.spyOn(readModel, 'kept').mockResolvedValueOnce(undefined);
  const reads = jest.spyOn(readModel, 'cached');
  const behind = await read(path, auth);
  expect(express).toHaveBeenCalled();
  expect(misses).toHaveBeenCalledTimes(1); // the seam's
  expect(reads).toHaveBeenCalledTimes(1); // express's or tRPC's
  expect(computes).not.toHaveBeenCalled();
  expect(counted()).toBe(auth === key ? 2 : 0);
  return { seam, behind };
}

describe('REST', () => {
  test.each(['/v1/requirements?limit=2', '/api/requirements?framework=gdpr&limit=50', '/v1/requirements'])(
    'GET %s: the seam answers what express answers',
    async (path) => {
      const { seam, behind } = await seamAndBehind(path);
      expect(seam.status).toBe(200);
      expect(seam.text).toBe(behind.text);
      expect(comparable(seam)).toEqual(comparable(behind));
      expect(Object.keys(comparable(seam)).sort()).toEqual(Object.keys(comparable(behind)).sort());
      expect(seam.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(seam.headers['x-ratelimit-limit']).toBe('1000');
      // Counted once each, on one counter.
      expect(Number(behind.headers['x-ratelimit-remaining'])).toBe(Number(seam.headers['x-ratelimit-remaining']) - 1);
      expect(seam.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    },
  );

  test('GET /v1/requirements/{id} and its /api alias, for an issued key and for the admin (no plan headers)', async () => {
    for (const auth of [key, ADMIN_KEY]) {
      for (const path of [`/v1/requirements/${ids[0]}`, `/api/requirements/${ids[1]}`]) {
        const { seam, behind } = await seamAndBehind(path, auth);
        expect(seam.status).toBe(200);
        expect(JSON.parse(seam.text).id).toBe(path.split('/').pop());
        expect(seam.text).toBe(behind.text);
        expect(comparable(seam)).toEqual(comparable(behind));
        expect(Object.keys(comparable(seam)).sort()).toEqual(Object.keys(comparable(behind)).sort());
        expect('x-ratelimit-limit' in seam.headers).toBe(auth === key);
      }
    }
  });

  test('a given X-Request-Id is echoed, and the answer is counted in /metrics under the route', async () => {
    const path = `/v1/requirements/${ids[2]}`;
    await read(path);
    const before = await metricValue('/v1/requirements/:id');
    const seam = await read(path, key, { 'x-request-id': 'seam-trace.1' });
    expect(seam.status).toBe(200);
    expect(seam.headers['x-request-id']).toBe('seam-trace.1');
    expect(await metricValue('/v1/requirements/:id')).toBe(before + 1);
  });

  test('what the seam cannot answer reaches express: an Origin, an invalid query, a refused key, a missing permission, an unknown id', async () => {
    const path = '/v1/requirements?limit=3';
    await read(path);
    const list = jest.spyOn(gw.services.requirements, 'list');
    const withOrigin = await read(path, key, { origin: 'https://elsewhere.example' });
    expect(withOrigin.status).toBe(200);
    expect(withOrigin.headers['access-control-allow-origin']).toBe('https://elsewhere.example');
    expect(list).toHaveBeenCalledTimes(1); // express's only

    const invalid = await read('/v1/requirements?limit=abc');
    expect(invalid.status).toBe(400);
    expect(JSON.parse(invalid.text).error.code).toBe('VALIDATION_ERROR');
    const twice = await read('/v1/requirements?limit=3&limit=4');
    expect(twice.status).toBe(400);

    expect((await read(path, 'sk_not_a_key')).status).toBe(401);
    expect((await read(path, null)).status).toBe(401);
    const noRead = (await okJson(gw, '/v1/auth/api-keys', { method: 'POST', json: { name: 'no read', permissions: ['read:compliance'] } })).key;
    const refused = await read(path, noRead);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text).error.code).toBe('AUTHORIZATION_ERROR');

    const unknown = await read('/v1/requirements/req_unknown');
    expect(unknown.status).toBe(404);
    expect((await read('/v1/requirements/req_unknown')).status).toBe(404);
  });
});

describe('tRPC', () => {
  const input = (value: unknown) => encodeURIComponent(JSON.stringify(value));

  test.each([
    ['compliance.requirements', (): string => `/trpc/compliance.requirements?input=${input({ limit: 2 })}`],
    ['compliance.requirements without input', (): string => '/trpc/compliance.requirements'],
    ['compliance.requirement', (): string => `/trpc/compliance.requirement?input=${input({ id: ids[0] })}`],
  ] as const)('%s: the seam answers what tRPC answers', async (_name, path) => {
    const { seam, behind } = await seamAndBehind(path());
    expect(seam.status).toBe(200);
    expect(seam.text).toBe(behind.text);
    expect(JSON.parse(seam.text).result.data).toBeDefined();
    expect(comparable(seam)).toEqual(comparable(behind));
    expect(Object.keys(comparable(seam)).sort()).toEqual(Object.keys(comparable(behind)).sort());
    expect(seam.headers.vary).toBe('trpc-accept, accept');
  });

  test('a batch, invalid input and a missing id are tRPC’s to answer', async () => {
    const path = `/trpc/compliance.requirement?input=${input({ id: ids[1] })}`;
    await read(path);
    const get = jest.spyOn(gw.services.requirements, 'get');
    const batch = await read(`/trpc/compliance.requirement,compliance.requirement?batch=1&input=${input({ 0: { id: ids[1] }, 1: { id: ids[1] } })}`);
    expect(batch.status).toBe(200);
    expect(JSON.parse(batch.text)).toHaveLength(2);
    expect(get).toHaveBeenCalledTimes(2); // tRPC's, one a call

    expect((await read(`/trpc/compliance.requirement?input=%7Bnot-json`)).status).toBe(400);
    expect((await read(`/trpc/compliance.requirement?input=${input({ id: 5 })}`)).status).toBe(400);
    expect((await read(`/trpc/compliance.requirement?input=${input({ id: 'req_unknown' })}`)).status).toBe(404);
  });
});

describe('the plan limit and changes', () => {
  test('seam, express and tRPC count on one counter, once per request', async () => {
    const path = '/v1/requirements?limit=1';
    const trpc = `/trpc/compliance.requirements?input=${encodeURIComponent(JSON.stringify({ limit: 1 }))}`;
    await read(path);
    await read(trpc);
    const remaining = async () => Number((await read(path)).headers['x-ratelimit-remaining']);
    const start = await remaining();
    await read(trpc); // the seam
    jest.spyOn(gw.services.readModel, 'kept').mockResolvedValueOnce(undefined);
    await read(trpc); // tRPC
    expect(await remaining()).toBe(start - 3);
  });

  test('a write through the gateway, and a change committed in SQL, are seen by the next read', async () => {
    const id = ids[0];
    const list = async () => JSON.parse((await read('/v1/requirements?limit=50')).text).data.find((r: any) => r.id === id);
    const detail = async () => JSON.parse((await read(`/v1/requirements/${id}`)).text);
    const trpcDetail = async () =>
      JSON.parse((await read(`/trpc/compliance.requirement?input=${encodeURIComponent(JSON.stringify({ id }))}`)).text).result.data;
    await list();
    await detail();
    await trpcDetail();
    expect((await detail()).status).toBe('pending');

    await okJson(gw, `/v1/requirements/${id}`, { method: 'PUT', json: { status: 'in-progress' }, auth: key });
    expect((await list()).status).toBe('in-progress');
    expect((await detail()).status).toBe('in-progress');
    expect((await trpcDetail()).status).toBe('in-progress');
    // Kept again, and answered by the seam.
    const express = expressRouter();
    const computes = jest.spyOn(gw.services.readModel, 'set');
    expect((await detail()).status).toBe('in-progress');
    expect(express).not.toHaveBeenCalled();
    expect(computes).not.toHaveBeenCalled();

    await sqlOf(gw)(`update requirements set title = 'Renamed behind the gateway' where id = ?`, [id]);
    expect((await detail()).title).toBe('Renamed behind the gateway');
    expect((await list()).title).toBe('Renamed behind the gateway');
    expect((await trpcDetail()).title).toBe('Renamed behind the gateway');
  });

  test('over the limit, express refuses in its own words and the count stays one per request', async () => {
    // Runs last: it spends the key's hourly plan.
    const path = `/v1/requirements/${ids[2]}`;
    await read(path);
    let res = await read(path);
    let left = Number(res.headers['x-ratelimit-remaining']);
    // Most of it in tRPC batches (each call counts one), the end one request at a time.
    const call = encodeURIComponent(JSON.stringify({ id: ids[2] }));
    while (left > 105) {
      const batch = await read(
        `/trpc/${Array(100).fill('compliance.requirement').join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [i, { id: ids[2] }]))))}`,
      );
      expect(batch.status).toBe(200);
      res = await read(path);
      expect(Number(res.headers['x-ratelimit-remaining'])).toBe(left - 101);
      left -= 101;
    }
    while (left > 0) {
      res = await read(path);
      expect(res.status).toBe(200);
      const now = Number(res.headers['x-ratelimit-remaining']);
      expect(now).toBe(left - 1);
      left = now;
    }
    const get = jest.spyOn(gw.services.requirements, 'get');
    const counted = planCount();
    const refused = await read(path);
    // The seam charged first and handed the refusal to express, whose limiter refused before the route ran.
    expect(get).not.toHaveBeenCalled();
    expect(counted()).toBe(1);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    const err = JSON.parse(refused.text);
    expect(err.error.code).toBe('RATE_LIMIT_EXCEEDED');
    const trpc = await read(`/trpc/compliance.requirement?input=${call}`);
    expect(get).not.toHaveBeenCalled();
    expect(counted()).toBe(2);
    expect(trpc.status).toBe(429);
    expect(JSON.parse(trpc.text).error.data.domainCode).toBe('RATE_LIMIT_EXCEEDED');
  });
});

async function metricValue(route: string): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('http_requests_total{') && l.includes(`route="${route}"`) && l.includes('method="GET"') && l.includes('status="200"'));
  return line ? Number(line.split(' ').pop()) : 0;
}
