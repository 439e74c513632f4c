import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startGateway, type TestGateway } from '../helpers/gateway';

/**
 * The published contract is one clients can generate from: every answer with a body is typed,
 * a linter with the recommended rules accepts it, and its examples work as sent. (Every answer of
 * the REST suites is also checked against it: tests/helpers/contract.ts.)
 */
let gw: TestGateway;
let dir: string;
let doc: any;
const bin = (name: string) => path.join(__dirname, '../../node_modules/.bin', name);
const quietEnv = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_UPDATE_NOTIFIER: '1' };

beforeAll(async () => {
  gw = await startGateway();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contract-'));
  doc = await (await gw.request('/api/openapi.json')).json();
  fs.writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(doc));
});
afterAll(async () => {
  await gw?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('openapi-typescript types every answer that has a body (no `never` but for HEAD, 204, 304 and webhook receipts)', () => {
  const out = path.join(dir, 'api.d.ts');
  const run = spawnSync(bin('openapi-typescript'), [path.join(dir, 'openapi.json'), '-o', out], { encoding: 'utf8', env: quietEnv, timeout: 120_000 });
  expect(run.status).toBe(0);
  const types = fs.readFileSync(out, 'utf8');
  const operations = types.split('export interface operations')[1];
  const untyped: string[] = [];
  const parts = operations.split(/\n {4}(\w+): \{\n/);
  for (let i = 1; i < parts.length; i += 2) {
    for (const m of parts[i + 1].matchAll(/\n {12}("?\w+"?): \{\n([\s\S]*?)\n {12}\};/g)) {
      if (m[2].includes('content?: never')) untyped.push(`${parts[i]} ${m[1].replace(/"/g, '')}`);
    }
  }
  const bodiless = (entry: string) => {
    const [op, status] = entry.split(' ');
    const method = Object.values<any>(doc.paths)
      .flatMap((p) => Object.entries<any>(p))
      .find(([, o]) => o.operationId === op)?.[0];
    return method === 'head' || status === '204' || status === '304' || (op.startsWith('webhook_') && status === '2XX');
  };
  expect(untyped.filter((e) => !bodiless(e))).toEqual([]);
  expect(untyped.length).toBeGreaterThan(0); // the bodiless ones are there, so the scan reads the output
  // Closed sets are enums a compiler checks, not strings.
  expect(types).toMatch(/framework: "iso13485" \| "fda21cfr11" \| "gdpr" \| "soc2"/);
  expect(types).toMatch(/provider\?: "provider_a" \| "provider_b" \| "provider_c" \| "mock"/);
});

test('redocly lint with the recommended rules passes', () => {
  const run = spawnSync(bin('redocly'), ['lint', path.join(dir, 'openapi.json'), '--extends', 'recommended', '--format', 'stylish'], {
    encoding: 'utf8',
    env: quietEnv,
    timeout: 120_000,
  });
  expect(`${run.stdout}\n${run.stderr}`).toContain('valid');
  expect(run.status).toBe(0);
});

test('request examples work as sent', async () => {
  const tried: string[] = [];
  for (const [template, methods] of Object.entries<any>(doc.paths)) {
    if (template.includes('{')) continue;
    for (const [method, op] of Object.entries<any>(methods)) {
      const example = op.requestBody?.content?.['application/json']?.example;
      if (example === undefined) continue;
      const res = await gw.request(template, { method: method.toUpperCase(), json: example });
      tried.push(`${op.operationId} ${res.status}`);
      const text = res.status < 400 ? '' : await res.clone().text();
      // The webhook example names a public host; this machine's network is loopback only.
      if (op.operationId === 'createWebhook' && /does not resolve/.test(text)) continue;
      expect({ op: op.operationId, status: res.status < 400 ? 'ok' : `${res.status} ${text}` }).toEqual({ op: op.operationId, status: 'ok' });
    }
  }
  expect(tried.length).toBeGreaterThanOrEqual(15);
});

test('the document names the license, and the webhooks section carries the signature headers', () => {
  expect(doc.info.license).toEqual(expect.objectContaining({ name: expect.any(String) }));
  expect(Object.keys(doc.webhooks)).toContain('requirement.created');
  const headers = doc.webhooks['requirement.created'].post.parameters.map((p: any) => p.name);
  expect(headers).toEqual(expect.arrayContaining(['x-service-signature', 'webhook-id', 'webhook-timestamp']));
});
