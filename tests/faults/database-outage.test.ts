import type { TestGateway } from '../helpers/gateway';
import { startGatewayBehindProxy, type GatewayBehindProxy } from '../helpers/gateway-behind-proxy';
import type { TcpProxy } from '../helpers/tcp-proxy';

/**
 * The database goes away for ~10 s (a TCP relay between gateway and database cuts every connection
 * and refuses new ones). Requests that need it answer 503 SERVICE_UNAVAILABLE quickly, liveness
 * stays up, readiness goes down, and the gateway recovers by itself once the database is back.
 */
const OUTAGE_MS = 10_000;
let gw: TestGateway;
let proxy: TcpProxy;
let faulty: GatewayBehindProxy | undefined;
/** The gateway's log lines (warn and above): the driver's messages must arrive here, not on the console. */
let logLines: string[] = [];
let consoleLog: jest.SpyInstance;

beforeAll(async () => {
  consoleLog = jest.spyOn(console, 'log');
  faulty = await startGatewayBehindProxy('gw_outage');
  ({ gw, proxy, logLines } = faulty);
}, 120_000);
afterAll(async () => {
  await faulty?.close();
});

async function timed(pathname: string) {
  const started = Date.now();
  const res = await gw.request(pathname);
  const body: any = await res.json().catch(() => null);
  return { status: res.status, body, retryAfter: res.headers.get('retry-after'), ms: Date.now() - started };
}

test('during an outage: 503 SERVICE_UNAVAILABLE within seconds, readiness down, liveness up; then recovery on its own', async () => {
  expect((await timed('/v1/requirements')).status).toBe(200);
  expect((await timed('/api/v1/health/ready')).body).toMatchObject({ ready: true });
  expect(proxy.open).toBeGreaterThan(0); // the gateway really talks through the relay

  proxy.stop();
  const outageStarted = Date.now();
  const duringOutage: Awaited<ReturnType<typeof timed>>[] = [];
  // The first request after the cut meets pooled connections that just died; later ones meet refusals.
  for (let i = 0; i < 3; i++) {
    duringOutage.push(await timed('/v1/requirements'));
    duringOutage.push(await timed(`/v1/requirements/${'00000000-0000-4000-8000-000000000000'}`));
  }
  const ready = await timed('/api/v1/health/ready');
  const live = await timed('/api/v1/health/live');
  expect(Date.now() - outageStarted).toBeLessThan(OUTAGE_MS); // all of that happened inside the outage

  for (const r of duringOutage) {
    expect({ status: r.status, code: r.body?.error?.code ?? r.body?.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(r.retryAfter).toMatch(/^\d+$/);
    expect(r.ms).toBeLessThan(2000);
    expect(JSON.stringify(r.body)).not.toMatch(/ECONN|knex|select |at \S+ \(/i); // no driver detail leaks
  }
  expect(ready.status).toBe(503);
  expect(ready.body).toMatchObject({ ready: false });
  expect(ready.ms).toBeLessThan(6000);
  expect(live.status).toBe(200);

  await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - outageStarted))));
  proxy.resume();
  const resumed = Date.now();
  let last: Awaited<ReturnType<typeof timed>> | undefined;
  while (Date.now() - resumed < 15_000) {
    last = await timed('/v1/requirements');
    if (last.status === 200) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  expect(last?.status).toBe(200);
  const driverOnConsole = consoleLog.mock.calls.filter((args) => /Connection Error|Knex/i.test(String(args[0])));
  consoleLog.mockRestore();
  expect(driverOnConsole).toEqual([]);
  expect(logLines.some((l) => l.includes('"component":"database-driver"'))).toBe(true);
  console.log(
    `database outage: ${duringOutage.map((r) => `${r.status}/${r.ms}ms`).join(' ')}; recovered ${Date.now() - resumed} ms after the database returned`,
  );
  expect((await timed('/api/v1/health/ready')).body).toMatchObject({ ready: true });
  const created = await gw.request('/v1/requirements', { method: 'POST', json: { title: 'Written after the outage', framework: 'gdpr' } });
  expect(created.status).toBe(201);
});
