import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_KEY, useGateway } from '../helpers/gateway';

/**
 * The client packages install as published (issue 31): `npm pack` of clients/typescript builds its
 * `dist/` (prepack), and the tarball installs into an empty project and talks to the gateway;
 * `pip install ./clients/python` leaves nothing behind in the checkout.
 */
const gw = useGateway();
const ROOT = path.resolve(__dirname, '../..');
const NPM_CLI = path.join(path.dirname(process.execPath), '../lib/node_modules/npm/bin/npm-cli.js');
const npm = (args: string[], cwd: string) =>
  execFileSync(process.execPath, [fs.existsSync(NPM_CLI) ? NPM_CLI : require.resolve('npm/bin/npm-cli.js'), ...args], {
    cwd,
    encoding: 'utf8',
    stdio: 'pipe',
    timeout: 300_000,
  });
const gitStatus = () =>
  execFileSync('git', ['status', '--porcelain', '--untracked-files=all', '--ignored=matching', 'clients/python'], { cwd: ROOT, encoding: 'utf8' });

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-packages-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('npm pack builds dist (prepack); the tarball installs into an empty project and calls the gateway', async () => {
  const out = npm(['pack', '--json', '--pack-destination', tmp, '--foreground-scripts'], path.join(ROOT, 'clients/typescript'));
  const [packed] = JSON.parse(out.slice(out.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  const files = packed.files.map((f) => f.path);
  expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'trpc/app-router.d.ts', 'bin/speech-gateway.js', 'package.json']));
  expect(files.filter((f) => f.startsWith('src/'))).toEqual([]);
  const tarball = path.join(tmp, packed.filename);

  const app = path.join(tmp, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'empty-app', version: '1.0.0', private: true }));
  // Dependencies come from the local npm cache first (the registry only for what it lacks).
  npm(['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], app);
  const script = `
    const { GatewayClient, OPERATIONS } = require('@speech-gateway/client');
    (async () => {
      const gw = new GatewayClient({ baseUrl: process.env.GW_URL, apiKey: process.env.GW_KEY });
      const health = await gw.health();
      const providers = await gw.listProviders();
      console.log(JSON.stringify({ status: health.status, providers: providers.providers.length, operations: Object.keys(OPERATIONS).length }));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  // Asynchronously: the gateway answers from this process.
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], {
    cwd: app,
    encoding: 'utf8',
    env: { ...process.env, GW_URL: gw.url, GW_KEY: ADMIN_KEY },
  });
  const result = JSON.parse(stdout.trim());
  expect(result.status).toMatch(/healthy|degraded/);
  expect(result.providers).toBeGreaterThan(0);
  expect(result.operations).toBeGreaterThanOrEqual(40);
});

test('pip install ./clients/python leaves the checkout as it was, and the installed package imports', () => {
  const before = gitStatus();
  const target = path.join(tmp, 'site');
  execFileSync('python3', ['-m', 'pip', 'install', '--quiet', '--no-deps', '--target', target, path.join(ROOT, 'clients/python')], {
    cwd: tmp,
    stdio: 'pipe',
    timeout: 300_000,
    env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' },
  });
  expect(gitStatus()).toBe(before);
  expect(fs.readdirSync(path.join(ROOT, 'clients/python')).filter((f) => f === 'build' || f.endsWith('.egg-info'))).toEqual([]);
  const imported = execFileSync('python3', ['-c', 'import speech_gateway, sys; print(speech_gateway.__file__)'], {
    cwd: tmp,
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: target },
  }).trim();
  expect(imported.startsWith(target)).toBe(true);
});
