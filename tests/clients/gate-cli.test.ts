/**
 * `npx speech-gateway gate …` (the TypeScript client's command) as a pipeline runs it: a real
 * process against a real gateway; the exit code is the answer.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { ADMIN_KEY, issueKey, useGateway } from '../helpers/gateway';

const BIN = path.resolve(__dirname, '../../node_modules/.bin/speech-gateway');

function gate(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(BIN, ['gate', ...args], { env: { ...process.env, GATEWAY_URL: '', GATEWAY_API_KEY: '', ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const gw = useGateway();

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

it('exits 2 naming the code when the gateway refuses the key or the framework', async () => {
  const anonymous = await gate(['--framework', 'soc2'], { GATEWAY_URL: gw.url });
  expect(anonymous.code).toBe(2);
  expect(anonymous.stderr).toMatch(/AUTHENTICATION_ERROR/);
  const weak = await gate(['--framework', 'soc2', '--url', gw.url, '--api-key', await issueKey(gw, ['read:requirements'])]);
  expect(weak.code).toBe(2);
  expect(weak.stderr).toMatch(/AUTHORIZATION_ERROR/);
  const framework = await gate(['--framework', 'hipaa', '--url', gw.url, '--api-key', ADMIN_KEY]);
  expect(framework.code).toBe(2);
  expect(framework.stderr).toMatch(/INVALID_FRAMEWORK/);
});

it('exits 0 on pass and 1 on fail, printing the checks', async () => {
  const key = await issueKey(gw, ['read:compliance']);
  const env = { GATEWAY_URL: gw.url, GATEWAY_API_KEY: key };
  const pass = await gate(['--framework', 'gdpr', '--min-score', '0', '--max-open-findings', '0'], env);
  expect(pass.stderr).toBe('');
  expect(pass.code).toBe(0);
  expect(pass.stdout).toMatch(/^PASS gdpr/);

  // An empty framework scores 0: below the default minimum of 70.
  const low = await gate(['--framework', 'gdpr'], env);
  expect(low.code).toBe(1);
  expect(low.stdout).toMatch(/^FAIL gdpr/);
  expect(low.stdout).toMatch(/FAIL Score 0 is below the minimum 70/);

  const req = (await (await gw.request('/v1/requirements', { method: 'POST', json: { title: 'Gate subject', framework: 'gdpr' } })).json()) as { id: string };
  const finding = await gw.request('/v1/audits/findings', {
    method: 'POST',
    json: { title: 'Open issue', description: 'd', framework: 'gdpr', severity: 'high', requirementId: req.id },
  });
  expect(finding.status).toBe(201);
  const tooMany = await gate(['--framework', 'gdpr', '--min-score', '0', '--max-open-findings', '0', '--json'], env);
  expect(tooMany.code).toBe(1);
  const answer = JSON.parse(tooMany.stdout);
  expect(answer).toMatchObject({ framework: 'gdpr', passed: false });
  expect(answer.reasons.join(' ')).toMatch(/1 open finding/);
  const allowed = await gate(['--framework', 'gdpr', '--min-score', '0', '--max-open-findings', '1'], env);
  expect(allowed.code).toBe(0);
});
