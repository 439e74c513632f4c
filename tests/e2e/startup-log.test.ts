import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The gateway's own process (gateway/main.ts), started as an operator starts it: every line it
 * prints is JSON, and the admin key generated on a first start is printed once, in a field a
 * script can read, and works.
 */
const ROOT = path.resolve(__dirname, '../..');

test('every start-up line is JSON; the generated admin key is printed once and works', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-startup-'));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', NODE_ENV: 'test' };
  const child = spawn(process.execPath, ['-r', path.join(ROOT, 'tests/helpers/ts-register.cjs'), path.join(ROOT, 'gateway/main.ts')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  try {
    const ready = await new Promise<any>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready in 120 s; stdout: ${stdout.slice(-2000)} stderr: ${stderr.slice(-2000)}`)), 120_000);
      child.stdout.on('data', () => {
        const line = stdout.split('\n').find((l) => l.includes('"event":"ready"'));
        if (line) {
          clearTimeout(timer);
          resolve(JSON.parse(line));
        }
      });
      child.once('exit', (code) => reject(new Error(`exited with ${code}; stderr: ${stderr.slice(-2000)}`)));
    });
    // Scripts waiting for the human-readable line still find it (bench/run.ts, tests/multi).
    expect(ready.msg).toMatch(/^Gateway ready at http:\/\/127\.0\.0\.1:\d+ \(/);

    const lines = stdout.split('\n').filter((l) => l.trim());
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    for (const line of lines)
      expect(JSON.parse(line)).toEqual(expect.objectContaining({ level: expect.any(Number), time: expect.any(String), msg: expect.any(String) }));

    const printed = lines.map((l) => JSON.parse(l)).filter((l) => l.adminApiKey);
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatchObject({ event: 'bootstrap-admin-key', adminApiKey: expect.stringMatching(/^sk_admin_/) });
    const res = await fetch(`${ready.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${printed[0].adminApiKey}` },
      body: JSON.stringify({ query: '{ viewer { isAdmin } }' }),
    });
    expect(await res.json()).toEqual({ data: { viewer: { isAdmin: true } } });
    // Only there: no other line repeats the key.
    expect(stdout.split(printed[0].adminApiKey).length - 1).toBe(1);
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 15_000)))]);
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const afterStop = stdout.split('\n').filter((l) => l.trim());
  for (const line of afterStop) expect(() => JSON.parse(line)).not.toThrow();
}, 180_000);
