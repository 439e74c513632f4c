import { findConsoleDir } from '../../gateway/console';
import { startGateway, type TestGateway } from '../helpers/gateway';

/**
 * The gateway serves the built web console (console/dist, made by `npm ci`) at `/` with a CSP of
 * its own; every other unknown path keeps its JSON 404. The console itself is tested in Chromium
 * (tests/browser, `npm run test:browser`).
 */
let gw: TestGateway;
beforeAll(async () => {
  if (!findConsoleDir()) throw new Error('console/dist is missing: run `npm run console:build` (npm ci does it)');
  gw = await startGateway();
}, 180_000);
afterAll(async () => {
  await gw?.close();
});

test('GET / is the console page, under a CSP that allows its own scripts, styles, media and WebSocket only', async () => {
  const res = await fetch(`${gw.url}/`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.headers.get('cache-control')).toBe('no-cache');
  const csp = res.headers.get('content-security-policy')!;
  for (const directive of [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "media-src 'self' blob:",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ]) {
    expect(csp).toContain(directive);
  }
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).not.toContain('unsafe-eval');
  const html = await res.text();
  expect(html).toMatch(/<script type="module" crossorigin src="\/assets\/[\w-]+\.js">/);
  expect(html).not.toMatch(/<script>(?!<\/script>)/); // no inline script
});

test('assets are served with long-lived caching; unknown assets and other paths keep their JSON 404', async () => {
  const html = await (await fetch(`${gw.url}/`)).text();
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1];
  const asset = await fetch(`${gw.url}${script}`);
  expect(asset.status).toBe(200);
  expect(asset.headers.get('content-type')).toMatch(/javascript/);
  expect(asset.headers.get('cache-control')).toMatch(/max-age=31536000.*immutable/);
  for (const path of ['/assets/nothing-here.js', '/dashboard', '/v1/dashboard', '/console']) {
    const res = await fetch(`${gw.url}${path}`);
    expect({ path, status: res.status }).toEqual({ path, status: 404 });
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await res.json()) as any).error.code).toBe('NOT_FOUND');
  }
});

test('API answers keep their own strict CSP', async () => {
  const res = await fetch(`${gw.url}/api/v1/health`);
  expect(res.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
});
