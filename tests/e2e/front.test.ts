/**
 * The request front (gateway/front): the edge work every request gets once before any framework runs
 * — its id, key, REST limiter, headers, body, metrics and access log — and the answers it gives at
 * the edge. Here the read model keeps nothing, so every read is computed by express, tRPC or Apollo
 * (tests/e2e/front-seam*.test.ts cover the answers the seam sends itself).
 */
import http from 'node:http';
import net from 'node:net';
import { ApolloServer } from '@apollo/server';
import { issueKey, useGateway } from '../helpers/gateway';
import { capturedLog, expectContextsOfTheirOwn, expressRouter, planCount, readAnswer, seedRequirements, type Answer } from '../helpers/seam';

const { lines: logLines, logger } = capturedLog();
const gw = useGateway({ READ_MODEL_CACHE_BYTES: '0' }, { logger });
afterEach(() => jest.restoreAllMocks());

let key: string;
let ids: string[];
beforeAll(async () => {
  ids = await seedRequirements(gw, 'Front requirement', 'computed');
  key = await issueKey(gw, ['read:requirements', 'write:requirements']);
});

const read = (path: string, auth: string | null = key, headers: Record<string, string> = {}): Promise<Answer> => readAnswer(gw, path, auth, headers);
const input = (value: unknown) => encodeURIComponent(JSON.stringify(value));
const loggedRequests = async (requestId: string) => {
  await new Promise((r) => setTimeout(r, 100)); // pino writes asynchronously
  return logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request' && l.requestId === requestId);
};

/** A raw request (node:http: exactly the headers given). */
function raw(method: string, path: string, body: string | Buffer | undefined, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${gw.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers as Record<string, string> }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('the gateway keeps nothing: every read is computed', () => {
  expect(gw.services.readModel.keeps).toBe(false);
});

describe('computed reads and their errors are the frameworks’, each counted once', () => {
  let noRead: string;
  beforeAll(async () => {
    noRead = await issueKey(gw, ['read:compliance']);
  });

  test.each([
    ['REST list', 200, 'list', (): string => '/v1/requirements?limit=2', () => key],
    ['REST invalid query', 400, 'list', (): string => '/v1/requirements?limit=abc', () => key],
    ['REST repeated query parameter', 400, 'list', (): string => '/v1/requirements?limit=3&limit=4', () => key],
    ['REST unknown framework', 400, 'list', (): string => '/v1/requirements?framework=nope', () => key],
    ['REST unknown id', 404, 'get', (): string => '/v1/requirements/req_unknown', () => key],
    ['REST key without read:requirements', 403, 'list', (): string => '/v1/requirements?limit=3', () => noRead],
    ['tRPC list', 200, 'list', (): string => `/trpc/compliance.requirements?input=${input({ limit: 2 })}`, () => key],
    ['tRPC invalid list input', 400, 'list', (): string => `/trpc/compliance.requirements?input=${input({ limit: 'abc' })}`, () => key],
    ['tRPC unknown id', 404, 'get', (): string => `/trpc/compliance.requirement?input=${input({ id: 'req_unknown' })}`, () => key],
    ['tRPC key without read:requirements', 403, 'list', (): string => `/trpc/compliance.requirements?input=${input({ limit: 3 })}`, () => noRead],
  ] as const)('%s: %i', async (_name, status, call, pathOf, keyOf) => {
    const express = expressRouter();
    const domain = jest.spyOn(gw.services.requirements, call);
    const counted = planCount();
    const answer = await read(pathOf(), keyOf(), { 'x-request-id': 'front-computed' });
    expect(answer.status).toBe(status);
    expect(express).toHaveBeenCalled();
    expect(domain).toHaveBeenCalledTimes(1);
    expect(counted()).toBe(1);
    if (pathOf().startsWith('/v1/')) {
      expect(answer.headers['x-ratelimit-limit']).toBe('1000');
      if (status !== 200) expect(JSON.parse(answer.text).error.requestId).toBe('front-computed');
    }
  });

  test('GraphQL: a query is Apollo’s, charged once per root field; a mutation runs once', async () => {
    const spender = await issueKey(gw, ['read:requirements', 'write:requirements']);
    const counted = planCount();
    const apollo = jest.spyOn(ApolloServer.prototype, 'executeHTTPGraphQLRequest');
    const two = await gw.request('/graphql', {
      method: 'POST',
      auth: spender,
      json: { query: '{ a: requirements(limit: 1) { pagination { total } } b: requirements(limit: 2) { pagination { total } } }' },
    });
    expect(two.status).toBe(200);
    expect(counted()).toBe(2);
    const create = jest.spyOn(gw.services.requirements, 'create');
    const made = await gw.request('/graphql', {
      method: 'POST',
      auth: spender,
      json: { query: 'mutation { createRequirement(input: { title: "Through the front", framework: GDPR }) { id } }' },
    });
    expect(((await made.json()) as any).data.createRequirement.id).toMatch(/^req_/);
    expect(create).toHaveBeenCalledTimes(1);
    expect(apollo).toHaveBeenCalledTimes(2);
    expect(counted()).toBe(3);
  });
});

describe('per request', () => {
  test('each request has its own context: its request id, its own EntityManager fork and loaders, its key', async () => {
    const list = jest.spyOn(gw.services.requirements, 'list');
    const [a, b] = await Promise.all([read('/v1/requirements?limit=2'), read(`/trpc/compliance.requirements?input=${input({ limit: 2 })}`)]);
    expect(list).toHaveBeenCalledTimes(2);
    expectContextsOfTheirOwn(gw, list.mock.calls, [a, b], 'test read:requirements,write:requirements');
  });

  test('one JSON access line per request: method, route template, status, duration, request id, key id, never the key', async () => {
    for (const [path, route] of [
      [`/v1/requirements/${ids[2]}`, '/v1/requirements/:id'],
      [`/trpc/compliance.requirements?input=${input({ limit: 1 })}`, '/trpc:compliance.requirements'],
      ['/v1/requirements/req_unknown', '/v1/requirements/:id'],
    ]) {
      const id = `front-trace-${route.length}-${path.length}`;
      const answer = await read(path, key, { 'x-request-id': id });
      expect(answer.headers['x-request-id']).toBe(id);
      const lines = await loggedRequests(id);
      expect(lines).toHaveLength(1);
      const [line] = lines;
      expect(line).toMatchObject({ level: 30, method: 'GET', route, status: answer.status, requestId: id });
      expect(typeof line.ms).toBe('number');
      expect(line.keyId).toMatch(/^key_/);
      expect(JSON.stringify(line)).not.toContain(key);
    }
  });

  test('a GraphQL operation is logged at info under its operation, as the client sent its path', async () => {
    const res = await gw.request('/graphql', {
      method: 'POST',
      auth: key,
      headers: { 'x-request-id': 'front-graphql-line' },
      json: { query: '{ requirements(limit: 1) { pagination { total } } }' },
    });
    expect(res.status).toBe(200);
    const [line] = await loggedRequests('front-graphql-line');
    expect(line).toMatchObject({ level: 30, method: 'POST', route: '/graphql:anonymous', status: 200 });
  });

  test('probes and static files are logged at debug, not in the access log at info', async () => {
    await read('/api/v1/health/live', null, { 'x-request-id': 'front-probe' });
    const [line] = await loggedRequests('front-probe');
    expect(line).toMatchObject({ level: 20, route: '/api/v1/health/live', status: 200 });
  });
});

describe('answers at the edge', () => {
  test('a known path with another method: 405 with Allow, in the path’s envelope', async () => {
    expect((await read('/v1/frameworks', key, {})).status).not.toBe(405);
    const refused = await raw('DELETE', '/v1/frameworks', undefined, { authorization: `Bearer ${key}` });
    expect(refused.status).toBe(405);
    expect(refused.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(JSON.parse(refused.text).error).toMatchObject({ code: 'METHOD_NOT_ALLOWED', requestId: refused.headers['x-request-id'] });
    const speech = await raw('PUT', '/api/v1/generate', undefined, {});
    expect(speech.status).toBe(405);
    expect(speech.headers.allow).toBe('POST, OPTIONS');
    expect(JSON.parse(speech.text).error).toMatchObject({ code: 'METHOD_NOT_ALLOWED', provider: null });
    // An unknown path stays a 404.
    expect((await raw('DELETE', '/v1/no-such-thing', undefined, {})).status).toBe(404);
  });

  test('bodies: not JSON, another media type, too large — refused in the path’s shape before any framework', async () => {
    const express = expressRouter();
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const malformed = await raw('POST', '/v1/requirements', '{"title": ', headers);
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.text).error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Request body is not valid JSON' });
    const text = await raw('POST', '/v1/requirements', 'title=x', { ...headers, 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    expect(JSON.parse(text.text).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const large = await raw('POST', '/v1/requirements', JSON.stringify({ title: 'x'.repeat(1_100_000) }), headers);
    expect(large.status).toBe(413);
    expect(JSON.parse(large.text).error.code).toBe('PAYLOAD_TOO_LARGE');
    const graphql = await raw('POST', '/graphql', '{"query": ', headers);
    expect(graphql.status).toBe(400);
    expect(JSON.parse(graphql.text).errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    expect(express).not.toHaveBeenCalled();
  });

  test('a client that leaves in the middle of its body is not answered, and nothing else is disturbed', async () => {
    // The front keeps no 'error' listener on a body it reads (gateway/front/body.ts): were node to
    // emit one anyway, it would be uncaught, and jest fails the suite.
    const express = expressRouter();
    const socket = net.connect(Number(new URL(gw.url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const answered = jest.fn();
    socket.on('data', answered);
    socket.write('POST /api/v1/generate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"text": "half a bo');
    await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    await new Promise((r) => setTimeout(r, 200));
    expect(answered).not.toHaveBeenCalled();
    expect(express).not.toHaveBeenCalled();
    expect((await raw('GET', '/api/v1/health', undefined, {})).status).toBe(200);
  });

  test('CORS: a preflight is answered by the policy; an allowed Origin gets its headers; every answer has the security headers', async () => {
    const preflight = await raw('OPTIONS', '/v1/requirements', undefined, { origin: 'https://app.example', 'access-control-request-method': 'POST' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example');
    const cross = await read('/v1/requirements?limit=1', key, { origin: 'https://app.example' });
    expect(cross.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(cross.headers['access-control-expose-headers']).toContain('X-Request-Id');
    for (const answer of [cross, await read('/v1/requirements?limit=1'), await read('/v1/nothing-here')]) {
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
      expect(answer.headers['x-request-id']).toBeDefined();
    }
  });
});
