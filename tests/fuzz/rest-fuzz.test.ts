import fc from 'fast-check';
import { ROUTE_TABLE } from '../../rest-adapter/route-table';
import type { RouteSpec } from '../../rest-adapter/route';
import { startGateway, type TestGateway } from '../helpers/gateway';
import {
  authorizationHeader,
  bodyArbitrary,
  closeAgent,
  contentTypeHeader,
  deeplyNested,
  fillPath,
  headersFor,
  pathSegment,
  problemsWith,
  queryString,
  rangeHeader,
  rawRequest,
} from './hostile';

/**
 * Hostile input against every route of the table (new routes are covered without edits): each
 * answer is below 500 (bar the documented PROVIDER_NOT_CONFIGURED), 4xx JSON answers carry the
 * route's documented envelope, nothing leaks internals, and the server is still alive afterwards.
 */
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 40);
/** Path/query/header runs are cheaper to vary and most end at auth or routing, so fewer per route. */
const PATH_RUNS_PER_ROUTE = Math.ceil(RUNS_PER_ROUTE * 0.6);
const takesBody = (r: RouteSpec) => ['post', 'put', 'patch', 'delete'].includes(r.method);
const label = (r: RouteSpec) => `${r.method.toUpperCase()} ${r.path}`;
/** A harmless value per path parameter, for runs that fuzz something else. */
const plainPath = (r: RouteSpec) => fillPath(r.path, () => 'does-not-exist');

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ MOCK_LATENCY_MS: '0' });
}, 60_000);
afterAll(async () => {
  closeAgent();
  await gw?.close();
});

async function expectAcceptable(route: RouteSpec, req: Parameters<typeof rawRequest>[1]) {
  const res = await rawRequest(gw.url, req);
  const problems = problemsWith(route.envelope, res);
  if (problems.length) throw new Error(`${req.method.toUpperCase()} ${req.path.slice(0, 300)} → ${problems.join('; ')}`);
  return res;
}

test('the route table is not empty (the fuzzing below covers every entry)', () => {
  expect(ROUTE_TABLE.length).toBeGreaterThan(10);
});

describe.each(ROUTE_TABLE.filter(takesBody).map((r) => [label(r), r] as const))('body fuzz: %s', (_name, route) => {
  test('schema-shaped, wrong-typed, deep, huge and non-UTF-8 bodies never get a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArbitrary(route), contentTypeHeader, authorizationHeader, async (body, contentType, auth) => {
        await expectAcceptable(route, { method: route.method, path: plainPath(route), headers: headersFor(auth, contentType, undefined), body });
      }),
      { numRuns: RUNS_PER_ROUTE },
    );
  });
});

describe.each(ROUTE_TABLE.map((r) => [label(r), r] as const))('path, query and header fuzz: %s', (_name, route) => {
  test('odd path values, query strings, Authorization and Range headers never get a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(pathSegment, queryString, authorizationHeader, rangeHeader, async (segment, query, auth, range) => {
        const path = fillPath(route.path, () => segment) + query;
        await expectAcceptable(route, { method: route.method, path, headers: headersFor(auth, undefined, range) });
      }),
      { numRuns: PATH_RUNS_PER_ROUTE },
    );
  });
});

describe('targeted hostile bodies', () => {
  const bodyRoutes = ROUTE_TABLE.filter(takesBody);

  test.each(bodyRoutes.map((r) => [label(r), r] as const))('%s: raw non-UTF-8 bytes labelled as JSON are a 4xx', async (_n, route) => {
    for (const bytes of [
      Buffer.from([0xff, 0xfe, 0xfd]),
      Buffer.from('{"text":"\xc3\x28"}', 'latin1'),
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
    ]) {
      const res = await expectAcceptable(route, {
        method: route.method,
        path: plainPath(route),
        headers: { 'content-type': 'application/json', authorization: `Bearer test-admin-key-0123456789abcdef` },
        body: bytes,
      });
      expect(res.status).toBeLessThan(500);
    }
  });

  test.each(bodyRoutes.map((r) => [label(r), r] as const))('%s: 5000-level nesting and a > 1 MB body are 4xx', async (_n, route) => {
    const headers = { 'content-type': 'application/json', authorization: `Bearer test-admin-key-0123456789abcdef` };
    for (const body of [deeplyNested(5000, 'array'), deeplyNested(5000, 'object'), `{"text":"x","options":${deeplyNested(5000, 'object')}}`]) {
      const res = await expectAcceptable(route, { method: route.method, path: plainPath(route), headers, body });
      expect(res.status).toBeLessThan(500);
    }
    const big = await expectAcceptable(route, { method: route.method, path: plainPath(route), headers, body: JSON.stringify({ text: 'a'.repeat(1_100_000) }) });
    if (route.rawBody) {
      // Routes that take a file's raw bytes (report verification) allow up to 50 MB, and refuse more.
      expect(big.status).not.toBe(413);
      const huge = await expectAcceptable(route, { method: route.method, path: plainPath(route), headers, body: Buffer.alloc(50 * 1024 * 1024 + 1, 0x61) });
      expect(huge.status).toBe(413);
    } else {
      expect(big.status).toBe(413);
    }
  });

  test('NUL characters, lone surrogates and emoji in text reach the database path without a 5xx', async () => {
    const route = ROUTE_TABLE.find((r) => r.path === '/api/v1/generate')!;
    for (const text of ['a\u0000b', '\uD800 lone', 'x\uDFFF', '😀 emoji 👩‍👩‍👧', '\u202E', 'ok\u0000'.repeat(50)]) {
      for (const options of [{ provider: 'mock' }, { provider: 'mock', voice: 'a\u0000' }]) {
        await expectAcceptable(route, {
          method: 'post',
          path: route.path,
          headers: { 'content-type': 'application/json', authorization: `Bearer test-admin-key-0123456789abcdef` },
          body: JSON.stringify({ text, options, metadata: { contentId: 'c\u0000', tags: ['\uD800'] } }),
        });
      }
    }
  });
});

test('after all of the above the server still answers /api/v1/health/live', async () => {
  const res = await fetch(`${gw.url}/api/v1/health/live`);
  expect(res.status).toBe(200);
});
