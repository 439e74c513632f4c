import { createLogger } from '../../gateway/logger';
import { createStandaloneDatabase } from '../helpers/database';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

/**
 * The database goes away for ~10 s (a TCP relay between gateway and database cuts every connection
 * and refuses new ones). Requests that need it answer 503 SERVICE_UNAVAILABLE quickly, liveness
 * stays up, readiness goes down, and the gateway recovers by itself once the database is back.
 */
const OUTAGE_MS = 10_000;
let gw: TestGateway;
let proxy: TcpProxy;
let cleanup: () => Promise<void> = async () => undefined;
/** The gateway's log lines (warn and above): the driver's messages must arrive here, not on the console. */
const logLines: string[] = [];
let consoleLog: jest.SpyInstance;

beforeAll(async () => {
  const db = await createStandaloneDatabase('gw_outage');
  cleanup = () => db.drop();
  const target = new URL(db.url);
  proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(target);
  viaProxy.host = `127.0.0.1:${proxy.port}`;
  consoleLog = jest.spyOn(console, 'log');
  gw = await startGateway({ DATABASE_URL: viaProxy.toString() }, { logger: createLogger('warn', { write: (line: string) => void logLines.push(line) }) });
}, 120_000);
afterAll(async () => {
  proxy?.resume();
  await gw?.close();
  await proxy?.close();
  await cleanup();
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
  console.log(`database outage: ${duringOutage.map((r) => `${r.status}/${r.ms}ms`).join(' ')}; recovered ${Date.now() - resumed} ms after the database returned`);
  expect((await timed('/api/v1/health/ready')).body).toMatchObject({ ready: true });
  const created = await gw.request('/v1/requirements', { method: 'POST', json: { title: 'Written after the outage', framework: 'gdpr' } });
  expect(created.status).toBe(201);
});
