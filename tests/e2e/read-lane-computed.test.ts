/**
 * The read lane (gateway/read-lane.ts) computes what the read model does not keep: here the gateway
 * keeps nothing (READ_MODEL_CACHE_BYTES=0), so every REST and tRPC list or get is computed, and the
 * lane answers it in front of express and tRPC. Its answers must be byte for byte and header for
 * header theirs; the plan limit is charged before anything is computed and counts each request
 * once; over the limit and on any error the request goes to express (or tRPC), which answers in its
 * own words; a write is seen by the next read. tests/e2e/read-lane.test.ts covers kept answers.
 */
import { ADMIN_KEY, issueKey, okJson, sqlOf, useGateway } from '../helpers/gateway';
import { capturedLog, expectContextsOfTheirOwn, withoutRetrySeconds, seedLaneRequirements, comparable, expressRouter, planCount, readAnswer, type LaneAnswer } from '../helpers/read-lane';

const { lines: logLines, logger } = capturedLog();
const gw = useGateway({ READ_MODEL_CACHE_BYTES: '0' }, { logger });
afterEach(() => jest.restoreAllMocks());

let key: string;
let ids: string[];
beforeAll(async () => {
  ids = await seedLaneRequirements(gw, 'Computed lane requirement', 'computed');
  key = await issueKey(gw, ['read:requirements', 'write:requirements']);
});

const read = (path: string, auth: string | null = key, headers: Record<string, string> = {}): Promise<LaneAnswer> => readAnswer(gw, path, auth, headers);
const input = (value: unknown) => encodeURIComponent(JSON.stringify(value));
/** A conditional request: the lane never takes one, and express (with no ETag) answers it as any other. */
const NOT_FOR_THE_LANE = { 'if-none-match': '"not-for-the-lane"' };

function expectSameAnswer(a: LaneAnswer, b: LaneAnswer) {
  expect(a.status).toBe(b.status);
  expect(a.text).toBe(b.text);
  expect(comparable(a)).toEqual(comparable(b));
  expect(Object.keys(a.headers).sort()).toEqual(Object.keys(b.headers).sort());
}

/**
 * One request answered by the lane (computed: nothing is kept), then the same request answered by
 * express or tRPC, twice: once handed on by the lane (its computation made to fail once, as any
 * error hands on), once not taken by the lane at all (a conditional request). Each counted once.
 */
async function laneAndExpress(path: string, auth: string | null = key) {
  jest.restoreAllMocks();
  const counts = auth === key;
  const express = expressRouter();
  const counted = planCount();
  const computed = jest.spyOn(gw.services.readModel, 'cached');
  const lane = await read(path, auth);
  expect(express).not.toHaveBeenCalled();
  expect(computed).toHaveBeenCalledTimes(1);
  expect(counted()).toBe(counts ? 1 : 0);

  computed.mockRejectedValueOnce(new Error('the lane hands this one on'));
  const handedOn = await read(path, auth);
  expect(express).toHaveBeenCalled();
  expect(computed).toHaveBeenCalledTimes(3); // the lane's (failed), then express's or tRPC's
  expect(counted()).toBe(counts ? 2 : 0);

  express.mockClear();
  const direct = await read(path, auth, NOT_FOR_THE_LANE);
  expect(express).toHaveBeenCalled();
  expect(computed).toHaveBeenCalledTimes(4);
  expect(counted()).toBe(counts ? 3 : 0);
  return { lane, handedOn, direct };
}

test('the gateway keeps nothing: every read is computed', () => {
  expect(gw.services.readModel.keeps).toBe(false);
});

describe('computed answers are express’s and tRPC’s, byte for byte', () => {
  test.each(['/v1/requirements?limit=2', '/api/requirements?framework=gdpr&limit=50', '/v1/requirements', '/v1/requirements?status=pending&priority=high&offset=1'])(
    'GET %s',
    async (path) => {
      const { lane, handedOn, direct } = await laneAndExpress(path);
      expect(lane.status).toBe(200);
      expect(JSON.parse(lane.text).data.length).toBeGreaterThan(0);
      expectSameAnswer(lane, handedOn);
      expectSameAnswer(lane, direct);
      expect(lane.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(lane.headers['x-ratelimit-limit']).toBe('1000');
      // One count each, on one counter.
      expect(Number(handedOn.headers['x-ratelimit-remaining'])).toBe(Number(lane.headers['x-ratelimit-remaining']) - 1);
      expect(Number(direct.headers['x-ratelimit-remaining'])).toBe(Number(lane.headers['x-ratelimit-remaining']) - 2);
    },
  );

  test('GET /v1/requirements/{id} and its /api alias, for an issued key and for the admin (no plan headers)', async () => {
    for (const auth of [key, ADMIN_KEY]) {
      for (const path of [`/v1/requirements/${ids[0]}`, `/api/requirements/${ids[1]}`]) {
        const { lane, handedOn, direct } = await laneAndExpress(path, auth);
        expect(lane.status).toBe(200);
        expect(JSON.parse(lane.text).id).toBe(path.split('/').pop());
        expectSameAnswer(lane, handedOn);
        expectSameAnswer(lane, direct);
        expect('x-ratelimit-limit' in lane.headers).toBe(auth === key);
      }
    }
  });

  test.each([
    ['compliance.requirements', (): string => `/trpc/compliance.requirements?input=${input({ limit: 2 })}`],
    ['compliance.requirements without input', (): string => '/trpc/compliance.requirements'],
    ['compliance.requirement', (): string => `/trpc/compliance.requirement?input=${input({ id: ids[2] })}`],
  ] as const)('tRPC %s', async (_name, path) => {
    const { lane, handedOn, direct } = await laneAndExpress(path());
    expect(lane.status).toBe(200);
    expect(JSON.parse(lane.text).result.data).toBeDefined();
    expectSameAnswer(lane, handedOn);
    expectSameAnswer(lane, direct);
    expect(lane.headers.vary).toBe('trpc-accept, accept');
  });
});

describe('errors are express’s and tRPC’s, counted once', () => {
  let noRead: string;
  beforeAll(async () => {
    noRead = await issueKey(gw, ['read:compliance']);
  });

  test.each([
    ['REST invalid query', 400, 'list', (): string => '/v1/requirements?limit=abc', () => key],
    ['REST repeated query parameter', 400, 'list', (): string => '/v1/requirements?limit=3&limit=4', () => key],
    ['REST unknown framework', 400, 'list', (): string => '/v1/requirements?framework=nope', () => key],
    ['REST unknown id', 404, 'get', (): string => '/v1/requirements/req_unknown', () => key],
    ['REST key without read:requirements', 403, 'list', (): string => '/v1/requirements?limit=3', () => noRead],
    ['REST key without read:requirements, one requirement', 403, 'get', (): string => `/v1/requirements/${ids[0]}`, () => noRead],
    ['tRPC invalid input', 400, null, (): string => `/trpc/compliance.requirement?input=${input({ id: 5 })}`, () => key],
    ['tRPC invalid list input', 400, 'list', (): string => `/trpc/compliance.requirements?input=${input({ limit: 'abc' })}`, () => key],
    ['tRPC unknown id', 404, 'get', (): string => `/trpc/compliance.requirement?input=${input({ id: 'req_unknown' })}`, () => key],
    ['tRPC key without read:requirements', 403, 'list', (): string => `/trpc/compliance.requirements?input=${input({ limit: 3 })}`, () => noRead],
  ] as const)('%s: %i', async (_name, status, call, pathOf, keyOf) => {
    const path = pathOf();
    const auth = keyOf();
    const express = expressRouter();
    const domain = call ? jest.spyOn(gw.services.requirements, call) : undefined;
    const counted = planCount();
    // The same request id both times: error bodies carry it.
    const viaLane = await read(path, auth, { 'x-request-id': 'computed-lane-error' });
    expect(express).toHaveBeenCalled();
    expect(counted()).toBe(1);
    // The lane tried (and took its count back), then express or tRPC computed again and answered.
    if (domain) expect(domain).toHaveBeenCalledTimes(2);
    const direct = await read(path, auth, { 'x-request-id': 'computed-lane-error', ...NOT_FOR_THE_LANE });
    expect(counted()).toBe(2);
    if (domain) expect(domain).toHaveBeenCalledTimes(3);
    expect(viaLane.status).toBe(status);
    expectSameAnswer(viaLane, direct);
    if (path.startsWith('/v1/')) {
      expect(viaLane.text).toContain('computed-lane-error');
      expect(Number(direct.headers['x-ratelimit-remaining'])).toBe(Number(viaLane.headers['x-ratelimit-remaining']) - 1);
    }
  });
});

describe('per request', () => {
  test('each computed answer has its own context: its request id, its own EntityManager fork and loaders', async () => {
    const list = jest.spyOn(gw.services.requirements, 'list');
    const express = expressRouter();
    const [a, b] = await Promise.all([read('/v1/requirements?limit=2'), read(`/trpc/compliance.requirements?input=${input({ limit: 2 })}`)]);
    expect(express).not.toHaveBeenCalled();
    expect(list).toHaveBeenCalledTimes(2);
    expectContextsOfTheirOwn(gw, list.mock.calls, [a, b], 'test read:requirements,write:requirements');
  });

  test('a given X-Request-Id is echoed; the answer is counted in /metrics and logged as express does, under the same route', async () => {
    for (const [path, route] of [
      [`/v1/requirements/${ids[2]}`, '/v1/requirements/:id'],
      [`/trpc/compliance.requirements?input=${input({ limit: 1 })}`, '/trpc:compliance.requirements'],
    ]) {
      const before = await metricValue(route);
      const express = expressRouter();
      const lane = await read(path, key, { 'x-request-id': 'computed-lane-trace.1' });
      expect(express).not.toHaveBeenCalled();
      expect(lane.status).toBe(200);
      expect(lane.headers['x-request-id']).toBe('computed-lane-trace.1');
      expect(await metricValue(route)).toBe(before + 1);
      await read(path, key, NOT_FOR_THE_LANE);
      expect(express).toHaveBeenCalled();
      expect(await metricValue(route)).toBe(before + 2);
    }
    await new Promise((r) => setTimeout(r, 100)); // pino writes asynchronously
    const logged = logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request' && l.requestId === 'computed-lane-trace.1');
    expect(logged.map((l) => [l.path, l.status, l.method, l.lane])).toEqual([
      ['/v1/requirements/:id', 200, 'GET', 'read'],
      ['/trpc:compliance.requirements', 200, 'GET', 'read'],
    ]);
  });
});

describe('changes and the plan limit', () => {
  test('a write through the gateway, and a change committed in SQL, are seen by the next read', async () => {
    const id = ids[0];
    const list = async () => JSON.parse((await read('/v1/requirements?limit=50')).text).data.find((r: any) => r.id === id);
    const detail = async () => JSON.parse((await read(`/v1/requirements/${id}`)).text);
    const trpcList = async () => JSON.parse((await read(`/trpc/compliance.requirements?input=${input({ limit: 50 })}`)).text).result.data.data.find((r: any) => r.id === id);
    const trpcDetail = async () => JSON.parse((await read(`/trpc/compliance.requirement?input=${input({ id })}`)).text).result.data;
    const express = expressRouter();
    expect((await list()).status).toBe('pending');
    expect((await detail()).status).toBe('pending');
    expect((await trpcList()).status).toBe('pending');
    expect((await trpcDetail()).status).toBe('pending');

    await okJson(gw, `/v1/requirements/${id}`, { method: 'PUT', json: { status: 'in-progress' }, auth: key });
    express.mockClear();
    expect((await list()).status).toBe('in-progress');
    expect((await detail()).status).toBe('in-progress');
    expect((await trpcList()).status).toBe('in-progress');
    expect((await trpcDetail()).status).toBe('in-progress');

    await sqlOf(gw)(`update requirements set title = 'Renamed behind the computed lane' where id = ?`, [id]);
    expect((await detail()).title).toBe('Renamed behind the computed lane');
    expect((await list()).title).toBe('Renamed behind the computed lane');
    expect((await trpcList()).title).toBe('Renamed behind the computed lane');
    expect((await trpcDetail()).title).toBe('Renamed behind the computed lane');
    expect(express).not.toHaveBeenCalled(); // every read above was the lane's
  });

  test('over the limit: express or tRPC refuses before anything is computed, and the request is counted once', async () => {
    const limited = await issueKey(gw, ['read:requirements']);
    const path = `/v1/requirements?limit=1`;
    let left = Number((await read(path, limited)).headers['x-ratelimit-remaining']);
    // Most of the hour's plan in tRPC batches (each call counts one), the end one lane request at a time.
    while (left > 105) {
      const batch = await read(`/trpc/${Array(100).fill('compliance.requirement').join(',')}?batch=1&input=${input(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [i, { id: ids[1] }])))}`, limited);
      expect(batch.status).toBe(200);
      const res = await read(path, limited);
      expect(Number(res.headers['x-ratelimit-remaining'])).toBe(left - 101);
      left -= 101;
    }
    while (left > 0) {
      const res = await read(path, limited);
      expect(res.status).toBe(200);
      expect(Number(res.headers['x-ratelimit-remaining'])).toBe(left - 1);
      left -= 1;
    }
    const list = jest.spyOn(gw.services.requirements, 'list');
    const get = jest.spyOn(gw.services.requirements, 'get');
    const express = expressRouter();
    const counted = planCount();
    for (const [n, refusedPath] of [path, `/v1/requirements/${ids[1]}`, `/trpc/compliance.requirements?input=${input({ limit: 1 })}`, `/trpc/compliance.requirement?input=${input({ id: ids[1] })}`].entries()) {
      express.mockClear();
      const viaLane = await read(refusedPath, limited, { 'x-request-id': 'computed-lane-429' });
      expect(express).toHaveBeenCalled();
      expect(counted()).toBe(2 * n + 1);
      const direct = await read(refusedPath, limited, { 'x-request-id': 'computed-lane-429', ...NOT_FOR_THE_LANE });
      expect(counted()).toBe(2 * n + 2);
      expect(viaLane.status).toBe(429);
      expect(withoutRetrySeconds(viaLane.text)).toBe(withoutRetrySeconds(direct.text));
      const { 'retry-after': retryAfter, ...rest } = comparable(viaLane);
      const { 'retry-after': directRetryAfter, ...directRest } = comparable(direct);
      expect(rest).toEqual(directRest);
      expect(Math.abs(Number(retryAfter) - Number(directRetryAfter))).toBeLessThanOrEqual(1);
      expect(Number(retryAfter)).toBeGreaterThan(0);
      if (refusedPath.startsWith('/v1/')) {
        expect(JSON.parse(viaLane.text).error.code).toBe('RATE_LIMIT_EXCEEDED');
        expect(viaLane.headers['x-ratelimit-remaining']).toBe('0');
      } else expect(JSON.parse(viaLane.text).error.data.domainCode).toBe('RATE_LIMIT_EXCEEDED');
    }
    // Refused before the route or procedure ran: nothing was computed, by the lane or behind it.
    expect(list).not.toHaveBeenCalled();
    expect(get).not.toHaveBeenCalled();
  });
});

async function metricValue(route: string): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('http_requests_total{') && l.includes(`route="${route}"`) && l.includes('method="GET"') && l.includes('status="200"'));
  return line ? Number(line.split(' ').pop()) : 0;
}
