import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createStandaloneDatabase } from '../helpers/database';

/**
 * A gateway process is killed with SIGKILL while it generates a report; a new process on the same
 * database takes the job over once its lease lapses and the report completes. The database runs
 * apart from the gateway (embedded PGlite in its own process, or TEST_DATABASE_URL), as in production.
 * The gateway runs from the TypeScript sources in a child process (support/report-gateway.cjs).
 */
const ADMIN_KEY = 'sigkill-admin-key-0123456789abcdef';
const CHILD = path.join(__dirname, 'support', 'report-gateway.cjs');
let databaseUrl: string;
let cleanup: () => Promise<void> = async () => undefined;
const children: ChildProcess[] = [];
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sigkill-'));

beforeAll(async () => {
  const db = await createStandaloneDatabase('gw_sigkill');
  databaseUrl = db.url;
  cleanup = () => db.drop();
}, 120_000);
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await cleanup();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  url: string;
  output: string[];
  /** Resolves when the output contains a line matching `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

function startChild(renderDelayMs: number): Promise<Started> {
  const child = spawn(process.execPath, [CHILD], {
    env: {
      ...process.env,
      NODE_OPTIONS: '', // plain Node, without the test runner's flags
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      ADMIN_API_KEY: ADMIN_KEY,
      LOG_LEVEL: 'warn',
      REPORT_TEST_LEASE_MS: '2000',
      REPORT_TEST_RENDER_DELAY_MS: String(renderDelayMs),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const output: string[] = [];
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output.push(...chunk.toString().split('\n').filter(Boolean));
    for (const w of [...waiters]) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const waitFor = (pattern: RegExp, timeoutMs = 60_000) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const line = output.find((l) => pattern.test(l));
        if (line) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(line);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          waiters.delete(check);
          clearTimeout(timer);
          reject(new Error(`gateway process exited (${child.exitCode ?? child.signalCode}) before ${pattern}:\n${output.join('\n')}`));
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out waiting for ${pattern}:\n${output.join('\n')}`));
      }, timeoutMs);
      waiters.add(check);
      child.once('exit', check);
      check();
    });
  return waitFor(/^ready http/).then((line) => ({ child, url: line.split(' ')[1], output, waitFor }));
}

const api = (base: string, pathname: string, init: RequestInit & { json?: unknown } = {}) =>
  fetch(base + pathname, {
    ...init,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
  });

test('SIGKILL during report generation: after a restart the report still completes and downloads', async () => {
  const first = await startChild(60_000); // runs never finish in the first process
  const requirement = await api(first.url, '/v1/requirements', { method: 'POST', json: { title: 'Encryption of backups at rest', framework: 'gdpr' } });
  expect(requirement.status).toBe(201);
  const requirementId = ((await requirement.json()) as any).id;
  const requested = await api(first.url, '/v1/compliance/reports', { method: 'POST', json: { framework: 'gdpr', format: 'json', includeEvidence: true } });
  expect(requested.status).toBe(202);
  const { reportId } = (await requested.json()) as any;

  await first.waitFor(/^report-run attempt=1$/, 30_000); // the job is running in the first process
  first.child.kill('SIGKILL');
  await new Promise((r) => first.child.once('exit', r));
  const killedAt = Date.now();

  const second = await startChild(0);
  const status = await api(second.url, `/v1/compliance/reports/${reportId}`);
  expect(((await status.json()) as any).status).toBe('generating'); // nothing finished it in between

  let report: any;
  for (;;) {
    report = await (await api(second.url, `/v1/compliance/reports/${reportId}`)).json();
    if (report.status !== 'generating') break;
    if (Date.now() - killedAt > 60_000) throw new Error(`report still generating:\n${second.output.join('\n')}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  expect(report.status).toBe('completed');
  await second.waitFor(/^report-run attempt=2$/, 1000); // the second process ran it, as a retry of the killed run
  const file = await api(second.url, report.downloadUrl);
  expect(file.status).toBe(200);
  const model: any = await file.json();
  expect(model.reportId).toBe(reportId);
  expect(model.requirements.map((r: any) => r.id)).toContain(requirementId);
  console.log(
    `report ${reportId} completed ${Date.now() - killedAt} ms after SIGKILL (runs: ${[...first.output, ...second.output].filter((l) => l.startsWith('report-run')).join(', ')})`,
  );

  second.child.kill('SIGTERM');
  await new Promise((r) => second.child.once('exit', r));
});
