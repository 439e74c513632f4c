import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN_KEY, issueKey, startGateway, type TestGateway } from '../helpers/gateway';
import { launchBrowser } from './browser';

/**
 * The web console as a person uses it: Debian's Chromium against a real gateway (embedded database,
 * mock speech provider). Another client is this test process, calling the same gateway's API.
 * With CONSOLE_SCREENSHOTS=<dir>, each page is also captured at 1280 px and 390 px wide.
 */

let gw: TestGateway;
let receiver: http.Server;
let receiverUrl: string;
const received: string[] = [];
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let context: BrowserContext;
const consoleErrors: string[] = [];

beforeAll(async () => {
  // A webhook receiver on loopback, so deliveries really arrive.
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['webhook-id']));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as import('node:net').AddressInfo).port}/hook`;
  gw = await startGateway({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  browser = await launchBrowser();
  context = browser.context;
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});
afterEach(() => {
  // A CSP violation or an uncaught exception in the page fails the test that caused it.
  const errors = consoleErrors.splice(0);
  expect(errors).toEqual([]);
});

async function openPage(): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (err) => consoleErrors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text())) consoleErrors.push(`console: ${msg.text()}`);
  });
  return page;
}

async function signIn(page: Page, key: string, hash = '') {
  await page.goto(`${gw.url}/${hash}`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Pages', exact: true }).waitFor();
}

async function api(query: string, variables: Record<string, unknown> = {}, auth: string | null = ADMIN_KEY) {
  const res = await gw.request('/graphql', { method: 'POST', json: { query, variables }, auth });
  const body: any = await res.json();
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

const scoreOf = (page: Page, framework: string) => page.getByTestId(`score-${framework}`).getByTestId('score-value');

describe('the web console in Chromium', () => {
  test('the page loads under its own CSP, and a wrong key shows the API error code and message', async () => {
    const res = await fetch(`${gw.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    // Other paths keep their JSON 404.
    const missing = await fetch(`${gw.url}/dashboard`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/application\/json/);

    const page = await openPage();
    await page.goto(`${gw.url}/`);
    await page.getByLabel('API key').fill('sk_not_a_real_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('AUTHENTICATION_ERROR');
    await page.close();
  });

  test('signing in shows the key and its permissions, kept for the tab only', async () => {
    const page = await openPage();
    await signIn(page, ADMIN_KEY);
    expect(await page.getByTestId('viewer-name').textContent()).toBe('admin');
    await page.getByText('Signed in as').click();
    const permissions = await page.getByTestId('permissions').locator('li').allTextContents();
    expect(permissions).toEqual(expect.arrayContaining(['manage:api-keys', 'write:requirements', 'tts:admin']));
    expect(await page.evaluate(() => Object.values(sessionStorage))).toContain(ADMIN_KEY);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    // A reload keeps the tab's session.
    await page.reload();
    await page.getByTestId('viewer-name').waitFor();
    for (const name of ['Compliance', 'Speech', 'Administration']) await page.getByRole('link', { name }).waitFor();
    await page.close();
  });

  test('works with the keyboard alone: sign in, move between pages', async () => {
    const page = await openPage();
    await page.goto(`${gw.url}/`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('api-key');
    await page.keyboard.type(ADMIN_KEY);
    await page.keyboard.press('Enter');
    await page.getByRole('navigation', { name: 'Pages', exact: true }).waitFor();
    let focused = '';
    for (let i = 0; i < 10 && focused !== 'Speech'; i++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => document.activeElement?.textContent ?? '');
    }
    expect(focused).toBe('Speech');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Speech' }).waitFor();
    await page.close();
  });

  test('creating a requirement changes the framework score', async () => {
    // A completed GDPR requirement first (another client), so the framework has a score to change.
    const { createRequirement } = await api('mutation($i: CreateRequirementInput!) { createRequirement(input: $i) { id } }', {
      i: { title: 'Encrypt personal data at rest', framework: 'GDPR', priority: 'HIGH', description: 'All personal data is encrypted with AES-256.' },
    });
    await api('mutation($id: String!) { updateRequirement(id: $id, input: { status: COMPLETED }) { id } }', { id: createRequirement.id });
    const gdprScore = async () => (await api('{ complianceStatus(framework: GDPR) { frameworks { score } } }')).complianceStatus.frameworks[0].score as number;
    const before = await gdprScore();

    const page = await openPage();
    await signIn(page, ADMIN_KEY, '#/compliance');
    await page.waitForFunction((b) => document.querySelector('[data-testid="score-gdpr"] [data-testid="score-value"]')?.textContent === String(b), before);
    await page.getByTestId('new-requirement').click();
    await page.getByLabel('Title').fill('Record consent for marketing e-mail');
    await page.locator('#req-form-framework').selectOption('GDPR');
    await page.locator('#req-form-priority').selectOption('critical');
    await page.getByLabel('Description').fill('Consent is recorded with time, purpose and version of the notice.');
    await page.getByRole('button', { name: 'Create requirement' }).click();
    await page.getByRole('rowheader', { name: 'Record consent for marketing e-mail' }).waitFor();
    await page.waitForFunction((b) => {
      const v = document.querySelector('[data-testid="score-gdpr"] [data-testid="score-value"]')?.textContent;
      return v !== undefined && v !== String(b);
    }, before);
    const after = Number(await scoreOf(page, 'gdpr').textContent());
    expect(after).not.toBe(before);
    expect(after).toBe(await gdprScore());

    // Validate: issues, suggestions and the clause mapping are shown.
    await page.getByRole('button', { name: 'Validate Record consent for marketing e-mail' }).click();
    const result = page.getByTestId('validation-result');
    await result.waitFor();
    const text = await result.textContent();
    expect(text).toMatch(/Validation of “Record consent for marketing e-mail”: (valid|not valid), score \d+/);
    expect(text).toContain('Clause mapping');

    // Edit: completing the requirement moves the score again.
    await page.getByRole('button', { name: 'Edit Record consent for marketing e-mail' }).click();
    await page.locator('#req-form-status').selectOption('completed');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForFunction((b) => document.querySelector('[data-testid="score-gdpr"] [data-testid="score-value"]')?.textContent !== String(b), after);
    expect(Number(await scoreOf(page, 'gdpr').textContent())).toBe(await gdprScore());
    expect(Number(await scoreOf(page, 'gdpr').textContent())).toBeGreaterThan(after);
    await page.close();
  });

  test("another client's change appears without a reload", async () => {
    const page = await openPage();
    await signIn(page, ADMIN_KEY, '#/compliance');
    await page.getByRole('status', { name: 'Live updates: connected' }).waitFor();
    const before = await scoreOf(page, 'soc2').textContent();
    const { createRequirement } = await api('mutation($i: CreateRequirementInput!) { createRequirement(input: $i) { id } }', {
      i: { title: 'Review access rights every quarter', framework: 'SOC2', priority: 'MEDIUM' },
    });
    await page.getByRole('rowheader', { name: 'Review access rights every quarter' }).waitFor({ timeout: 10_000 });
    await page.getByTestId('live-feed').getByText('Review access rights every quarter').first().waitFor();
    await api('mutation($id: String!) { updateRequirement(id: $id, input: { status: COMPLETED }) { id } }', { id: createRequirement.id });
    await page.waitForFunction((prev) => document.querySelector('[data-testid="score-soc2"] [data-testid="score-value"]')?.textContent !== prev, before, { timeout: 10_000 });
    expect(Number(await scoreOf(page, 'soc2').textContent())).toBeGreaterThan(Number(before));
    await page.close();
  });

  test('findings: record one with evidence, attach more, resolve it', async () => {
    const page = await openPage();
    await signIn(page, ADMIN_KEY, '#/compliance');
    await page.getByRole('button', { name: 'Record finding' }).click();
    await page.locator('#finding-title').fill('Backups are not tested');
    await page.locator('#finding-framework').selectOption('ISO13485');
    await page.locator('#finding-form-severity').selectOption('high');
    await page.locator('#finding-evidence').fill('backup-log-2026-10.txt');
    await page.getByRole('button', { name: 'Record', exact: true }).click();
    const item = page.locator('li.finding', { hasText: 'Backups are not tested' });
    await item.waitFor();
    await item.getByLabel('Attach evidence').fill('restore-drill-plan.pdf');
    await item.getByRole('button', { name: 'Attach' }).click();
    await item.getByText('restore-drill-plan.pdf').waitFor();
    // Resolving without a resolution is refused by the API: its code and message are shown.
    await item.getByRole('button', { name: 'Resolve' }).click();
    expect(await item.getByRole('alert').textContent()).toContain('VALIDATION_ERROR');
    await item.getByLabel('Resolution').fill('Monthly restore drill added to the runbook');
    await item.getByRole('button', { name: 'Resolve' }).click();
    await item.getByText('Resolution: Monthly restore drill added to the runbook').waitFor();
    const { findings } = await api('{ findings(filter: { framework: ISO13485 }) { data { title status evidence } } }');
    expect(findings.data).toContainEqual({ title: 'Backups are not tested', status: 'RESOLVED', evidence: ['backup-log-2026-10.txt', 'restore-drill-plan.pdf'] });
    await page.close();
  });

  test('history: the chart follows the period, metric and framework', async () => {
    const page = await openPage();
    await signIn(page, ADMIN_KEY, '#/compliance');
    const history = page.locator('#history');
    await history.locator('.chart canvas, .hint').first().waitFor();
    for (const period of ['7d', '90d', '1y', '30d']) {
      await history.getByRole('radio', { name: period }).check();
      await history.getByText(new RegExp(`over ${period}:`)).waitFor();
    }
    await page.locator('#history-metric').selectOption('REQUIREMENT_COMPLETION');
    await history.getByText(/Requirement completion over 30d/).waitFor();
    await page.locator('#history-framework').selectOption('GDPR');
    await history.getByText(/Requirement completion over 30d/).waitFor();
    expect(await history.locator('.chart canvas').count()).toBe(1);
    await page.close();
  });

  test('a report is requested, its status changes live, and it downloads', async () => {
    const page = await openPage();
    await signIn(page, ADMIN_KEY, '#/compliance');
    await page.locator('#report-framework').selectOption('GDPR');
    await page.locator('#report-format').selectOption('csv');
    await page.getByRole('button', { name: 'Request report' }).click();
    const report = page.getByTestId('report').first();
    await report.waitFor();
    await page.locator('[data-testid="report"][data-status="completed"]').first().waitFor({ timeout: 30_000 });
    const [download] = await Promise.all([page.waitForEvent('download'), report.getByRole('button', { name: /Download CSV/ }).click()]);
    const file = await download.path();
    const csv = fs.readFileSync(file!, 'utf8');
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    expect(csv).toContain('Record consent for marketing e-mail');

    await page.locator('#report-format').selectOption('pdf');
    await page.getByRole('button', { name: 'Request report' }).click();
    await page.locator('[data-testid="report"][data-status="completed"]').nth(1).waitFor({ timeout: 30_000 });
    const pdfItem = page.locator('[data-testid="report"]', { hasText: 'PDF' }).first();
    const [pdf] = await Promise.all([page.waitForEvent('download'), pdfItem.getByRole('button', { name: /Download PDF/ }).click()]);
    expect(fs.readFileSync((await pdf.path())!).subarray(0, 5).toString()).toBe('%PDF-');
    await page.close();
  });

  test('speech: the estimate follows the text, Generate plays the audio and says whether it was cached', async () => {
    const page = await openPage();
    await signIn(page, ADMIN_KEY, '#/speech');
    await page.getByLabel('Text', { exact: true }).fill('The console speaks.');
    await page.waitForFunction(() => document.querySelector('[data-testid="estimate"]')?.textContent?.includes('19 characters'));
    await page.locator('#speech-format').selectOption('wav');
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    await page.getByTestId('cache-state').waitFor();
    expect(await page.getByTestId('cache-state').textContent()).toBe('Newly generated');
    const loaded = await page.getByTestId('audio').evaluate(
      (el: HTMLAudioElement) =>
        new Promise<{ readyState: number; duration: number; src: string }>((resolve, reject) => {
          const done = () => resolve({ readyState: el.readyState, duration: el.duration, src: el.currentSrc });
          if (el.readyState >= 1) return done();
          el.addEventListener('loadedmetadata', done, { once: true });
          el.addEventListener('error', () => reject(new Error(`audio error ${el.error?.code}`)), { once: true });
        }),
    );
    expect(loaded.readyState).toBeGreaterThanOrEqual(1);
    expect(loaded.duration).toBeGreaterThan(0);
    expect(loaded.src).toMatch(/\/api\/v1\/audio\//);
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="cache-state"]')?.textContent === 'From the cache');
    await page.close();
  });

  test('with API_KEY set, speech is keyed: the console fetches the audio with the key and plays it', async () => {
    const keyed = await startGateway({ API_KEY: 'tts-deployment-key-for-console-test' });
    try {
      const page = await openPage();
      await page.goto(`${keyed.url}/`);
      await page.getByLabel('API key').fill(ADMIN_KEY);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('link', { name: 'Speech' }).click();
      await page.getByLabel('Text', { exact: true }).fill('Keyed speech.');
      await page.getByRole('button', { name: 'Generate', exact: true }).click();
      const src = await page.getByTestId('audio').evaluate(
        (el: HTMLAudioElement) =>
          new Promise<string>((resolve, reject) => {
            if (el.readyState >= 1) return resolve(el.currentSrc);
            el.addEventListener('loadedmetadata', () => resolve(el.currentSrc), { once: true });
            el.addEventListener('error', () => reject(new Error(`audio error ${el.error?.code}`)), { once: true });
          }),
      );
      expect(src).toMatch(/^blob:/);
      await page.close();
    } finally {
      await keyed.close();
    }
  });

  test('long text is generated progressively and every chunk bar reaches 100 %', async () => {
    const page = await openPage();
    await signIn(page, ADMIN_KEY, '#/speech');
    const sentence = 'Progressive generation reports each finished chunk to the page while the rest is still being made. ';
    await page.getByLabel('Text', { exact: true }).fill(sentence.repeat(16).trim());
    await page.getByRole('button', { name: 'Generate (progressive)' }).click();
    await page.getByTestId('audio').waitFor({ timeout: 30_000 });
    const bars = await page.getByTestId('chunk-bar').evaluateAll((els) => els.map((e) => (e as HTMLProgressElement).value));
    expect(bars.length).toBeGreaterThan(1);
    expect(bars.every((v) => v === 100)).toBe(true);
    expect(await page.getByTestId('overall-progress').evaluate((e: HTMLProgressElement) => e.value)).toBe(100);
    await page.getByTestId('audio').evaluate(
      (el: HTMLAudioElement) =>
        new Promise<void>((resolve, reject) => {
          if (el.readyState >= 1) return resolve();
          el.addEventListener('loadedmetadata', () => resolve(), { once: true });
          el.addEventListener('error', () => reject(new Error(`audio error ${el.error?.code}`)), { once: true });
        }),
    );
    await page.close();
  });

  test('a key without write permissions is offered no write controls', async () => {
    const key = await issueKey(gw, ['read:requirements', 'read:compliance', 'read:audits', 'read:dashboard']);
    const page = await openPage();
    await signIn(page, key, '#/compliance');
    await page.getByRole('rowheader', { name: 'Record consent for marketing e-mail' }).waitFor();
    await page.getByTestId('score-gdpr').waitFor();
    for (const name of ['New requirement', 'Record finding', 'Request report', 'Edit', 'Validate', 'Attach', 'Resolve']) {
      expect(await page.getByRole('button', { name, exact: false }).count()).toBe(0);
    }
    expect(await page.getByRole('link', { name: 'Administration' }).count()).toBe(0);
    await page.getByText('Signed in as').click();
    expect(await page.getByTestId('permissions').locator('li').allTextContents()).toEqual(['read:requirements', 'read:compliance', 'read:audits', 'read:dashboard']);
    await page.close();
  });

  test('administration: issue a key with picked permissions, revoke it; register a webhook and see its deliveries', async () => {
    const page = await openPage();
    await signIn(page, ADMIN_KEY, '#/admin');
    await page.getByLabel('Name').fill('console reader');
    await page.getByRole('checkbox', { name: 'read:requirements' }).check();
    await page.getByRole('button', { name: 'Issue key' }).click();
    await page.locator('[data-testid="issued-secret"], [role="alert"]').first().waitFor();
    expect(await page.getByRole('alert').allTextContents()).toEqual([]);
    const secret = (await page.getByTestId('issued-secret').textContent())!;
    const viewer = await api('{ viewer { name permissions } }', {}, secret);
    expect(viewer.viewer).toEqual({ name: 'console reader', permissions: ['READ_REQUIREMENTS'] });
    await page.getByRole('button', { name: 'Revoke console reader' }).click();
    await page.getByTestId('issued-key').getByText('revoked').waitFor();
    const res = await gw.request('/graphql', { method: 'POST', json: { query: '{ viewer { name } }' }, auth: secret });
    expect(((await res.json()) as any).errors[0].extensions.code).toBe('AUTHENTICATION_ERROR');

    // A refused registration shows the API's code and message.
    await page.getByLabel('Target URL').fill('ftp://files.example.com/drop');
    await page.getByRole('button', { name: 'Register webhook' }).click();
    expect(await page.getByRole('alert').first().textContent()).toContain('VALIDATION_ERROR');
    await page.getByLabel('Target URL').fill(receiverUrl);
    await page.getByRole('button', { name: 'Register webhook' }).click();
    await page.getByText('Signing secret (shown once)').waitFor();
    await page.getByText(receiverUrl).waitFor();
    await api('mutation($i: CreateRequirementInput!) { createRequirement(input: $i) { id } }', { i: { title: 'Webhook trigger', framework: 'ISO13485' } });
    for (let i = 0; i < 50 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(received.length).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Deliveries' }).click();
    const row = page.getByRole('row', { name: /requirement\.created/ }).first();
    await row.waitFor();
    expect(await row.textContent()).toMatch(/delivered\s*1\s*204/);
    await page.close();
  });

  test('screen readers: axe-core finds no serious or critical problem on any page', async () => {
    const axeSource = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    const page = await openPage();
    await page.goto(`${gw.url}/`);
    const audit = async (where: string) => {
      // Evaluated through the DevTools protocol: the console's CSP (rightly) refuses an inline script.
      await page.evaluate(axeSource);
      const { violations, rulesPassed } = await page.evaluate(async () => {
        const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
        return {
          rulesPassed: result.passes.length as number,
          violations: result.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, help: v.help })) as { id: string; impact: string; nodes: number; help: string }[],
        };
      });
      expect(rulesPassed).toBeGreaterThan(10); // the audit really ran
      expect({ where, serious: violations.filter((v) => v.impact === 'serious' || v.impact === 'critical') }).toEqual({ where, serious: [] });
    };
    await page.getByLabel('API key').waitFor();
    await audit('sign-in');
    await page.getByLabel('API key').fill(ADMIN_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    for (const route of ['compliance', 'speech', 'admin']) {
      await page.goto(`${gw.url}/#/${route}`);
      await page.locator('main h1').waitFor();
      await page.waitForLoadState('networkidle');
      await audit(route);
    }
    await page.close();
  });

  test('every page fits 1280 px and 390 px wide screens without horizontal scrolling', async () => {
    const shots = process.env.CONSOLE_SCREENSHOTS;
    if (shots) fs.mkdirSync(shots, { recursive: true });
    await api('mutation($i: CreateFindingInput!) { createFinding(input: $i) { id } }', {
      i: { title: 'Audit log export lacks signatures', framework: 'FDA21CFR11', severity: 'HIGH', description: 'Exported audit logs carry no signature manifest.', evidence: ['audit-2026-11.pdf, p. 4'] },
    });
    const page = await openPage();
    await signIn(page, ADMIN_KEY, '#/compliance');
    // A report of this tab, so the reports list shows one.
    await page.getByRole('button', { name: 'Request report' }).click();
    await page.locator('[data-testid="report"][data-status="completed"]').first().waitFor({ timeout: 30_000 });
    for (const [width, label] of [[1280, 'desktop'], [390, 'mobile']] as const) {
      await page.setViewportSize({ width, height: 900 });
      for (const route of ['compliance', 'speech', 'admin']) {
        await page.goto(`${gw.url}/#/${route}`);
        await page.locator('main h1').waitFor();
        await page.waitForLoadState('networkidle');
        if (route === 'speech') await page.waitForFunction(() => document.querySelector('[data-testid="estimate"]')?.textContent?.startsWith('Estimated cost'));
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect({ route, width, overflow }).toEqual({ route, width, overflow: 0 });
        if (shots) await page.screenshot({ path: path.join(shots, `${route}-${label}.png`), fullPage: true });
      }
    }
    if (shots) {
      await page.setViewportSize({ width: 1280, height: 900 });
      const signin = await openPage();
      for (const [width, label] of [[1280, 'desktop'], [390, 'mobile']] as const) {
        await signin.setViewportSize({ width, height: 700 });
        await signin.goto(`${gw.url}/`);
        await signin.getByLabel('API key').waitFor();
        await signin.screenshot({ path: path.join(shots, `signin-${label}.png`) });
      }
      await signin.close();
    }
    await page.close();
  });
});
