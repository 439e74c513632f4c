/**
 * `npx speech-gateway gate …` (the TypeScript client's command) as a pipeline runs it: a real
 * process against a real gateway; the exit code is the answer.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { ADMIN_KEY, startGateway, type TestGateway } from '../helpers/gateway';

const BIN = path.resolve(__dirname, '../../node_modules/.bin/speech-gateway');

function gate(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(BIN, ['gate', ...args], { env: { ...process.env, GATEWAY_URL: '', GATEWAY_API_KEY: '', ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
});

it('exits 2 with the usage when arguments are wrong', async () => {
  const missing = await gate(['--url', gw.url, '--api-key', ADMIN_KEY]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toMatch(/--framework is required/);
  expect(missing.stderr).toMatch(/Usage: speech-gateway gate/);
  const notNumber = await gate(['--framework', 'soc2', '--min-score', 'high', '--url', gw.url]);
  expect(notNumber.code).toBe(2);
  expect(notNumber.stderr).toMatch(/--min-score must be a number/);
});

it('exits 2 when the gateway cannot be reached', async () => {
  const down = await gate(['--framework', 'soc2', '--url', 'http://127.0.0.1:9', '--api-key', ADMIN_KEY]);
  expect(down.code).toBe(2);
  expect(down.stderr).toMatch(/could not ask the gate/);
});
