import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_KEY, startGateway, type TestGateway } from '../helpers/gateway';

/**
 * Issue 37 findings 3 and 11: after `kill -9` of the embedded database every database request
 * answered 503 for good while health said `healthy`. It is restarted: back within 10 s, health
 * `degraded` (with the database's state) and ready 503 meanwhile, live 200 throughout. When it cannot
 * come back, the gateway exits non-zero. Crash leftovers are swept at start. Embedded only: this is
 * the embedded database's own supervision (PostgreSQL outages are tests/faults/database-outage).
 */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ DATABASE_URL: '' });
}, 120_000);
afterAll(async () => {
  await gw?.close();
});

test('kill -9 of the embedded database: degraded and not ready meanwhile, live throughout, back within 10 s with its data', async () => {
  const created = await gw.request('/v1/requirements', { method: 'POST', json: { title: 'Survives a database crash', framework: 'gdpr' } });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as any;
  const supervisor = gw.db.supervisor!;
  const firstPid = supervisor.pid;
  process.kill(firstPid, 'SIGKILL');
  const killedAt = Date.now();
  const seen = { degraded: undefined as any, notReady: false, liveAlways: true };
  let backAfter = -1;
  while (Date.now() - killedAt < 15_000) {
    const [health, ready, live, read] = await Promise.all([
      gw.request('/api/v1/health').then((r) => r.json()),
      gw.request('/api/v1/health/ready').then((r) => r.status),
      gw.request('/api/v1/health/live').then((r) => r.status),
      gw.request(`/v1/requirements/${id}`).then((r) => r.status),
    ]);
    if ((health as any).status === 'degraded') seen.degraded ??= health;
    if (ready === 503) seen.notReady = true;
    if (live !== 200) seen.liveAlways = false;
    if (read === 200 && seen.degraded) {
      backAfter = Date.now() - killedAt;
      break;
    }
    expect([200, 503]).toContain(read);
    await new Promise((r) => setTimeout(r, 50));
  }
  console.log(`embedded database back ${backAfter} ms after kill -9 (pid ${firstPid} → ${supervisor.pid})`);
  expect(seen.degraded).toMatchObject({ status: 'degraded', database: { state: expect.stringMatching(/^(restarting|unavailable)$/) } });
  expect(seen.notReady).toBe(true);
  expect(seen.liveAlways).toBe(true);
  expect(backAfter).toBeGreaterThan(0);
  expect(backAfter).toBeLessThan(10_000);
  expect(supervisor.pid).not.toBe(firstPid);
  const health: any = await (await gw.request('/api/v1/health')).json();
  expect(health).toMatchObject({ status: 'healthy', database: { state: 'up', embedded: { restarts: 1, lastExit: { signal: 'SIGKILL' } } } });
  expect((await gw.request('/api/v1/health/ready')).status).toBe(200);
  // Writes work again too.
  expect((await gw.request('/v1/requirements', { method: 'POST', json: { title: 'After the restart', framework: 'gdpr' } })).status).toBe(201);
}, 60_000);

test('a gateway whose embedded database cannot come back exits non-zero; crash leftovers are swept at the next start', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-dblost-'));
  // Leftovers of a crashed gateway: half-written audio and a dead database's socket directory.
  fs.mkdirSync(path.join(dataDir, 'audio', 'incoming'), { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'audio', 'incoming', '999999.0f0e0d0c-aaaa-bbbb-cccc-0123456789ab.tmp'), 'partial');
  const deadSocketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-pglite-999998-'));
  fs.writeFileSync(path.join(deadSocketDir, '.s.PGSQL.5432'), '');
  const root = path.resolve(__dirname, '../..');
  const child = spawn(process.execPath, ['-r', path.join(root, 'tests/helpers/ts-register.cjs'), path.join(root, 'gateway/main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      NODE_OPTIONS: '',
      DATABASE_URL: '',
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ADMIN_API_KEY: ADMIN_KEY,
      LOG_LEVEL: 'info',
      EMBEDDED_DATABASE_RESTART_MS: '2000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (c) => output.push(String(c)));
  child.stderr!.on('data', (c) => output.push(String(c)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 90_000;
    while (!/"event":"ready"/.test(output.join('')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(output.join('')).toMatch(/"event":"ready"/);
    expect(fs.existsSync(path.join(dataDir, 'audio', 'incoming', '999999.0f0e0d0c-aaaa-bbbb-cccc-0123456789ab.tmp'))).toBe(false);
    expect(fs.existsSync(deadSocketDir)).toBe(false);
    // The data directory becomes unusable (a file where it was), then the database process dies.
    const pgdata = path.join(dataDir, 'pgdata');
    fs.renameSync(pgdata, `${pgdata}.moved`);
    fs.writeFileSync(pgdata, 'not a directory');
    const dbPid = Number(
      execFileSync('ps', ['--ppid', String(child.pid), '-o', 'pid=', '-o', 'args='])
        .toString()
        .split('\n')
        .find((l) => l.includes('embedded-postgres-server'))!
        .trim()
        .split(/\s+/)[0],
    );
    process.kill(dbPid, 'SIGKILL');
    const code = await Promise.race([exited, new Promise<'still running'>((r) => setTimeout(() => r('still running'), 30_000))]);
    expect(code).not.toBe('still running');
    expect(code).not.toBe(0);
    expect(output.join('')).toMatch(/could not be restarted/);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(deadSocketDir, { recursive: true, force: true });
  }
}, 150_000);
