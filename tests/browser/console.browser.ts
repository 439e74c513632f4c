import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN_KEY, issueKey, mintKey, startGateway, type TestGateway } from '../helpers/gateway';
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
    if (msg.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text()))
      consoleErrors.push(`console: ${msg.text()}`);
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
    // A sentence by the code first, then the server's message and the code itself.
    const text = await alert.textContent();
    expect(text).toMatch(/^This key is not valid: it may be mistyped, revoked or expired\./);
    expect(text).toContain('Invalid or missing API key');
    expect(text).toContain('AUTHENTICATION_ERROR');
    await page.close();
  });

  test("a new project's compliance page says what is empty instead of drawing nothing", async () => {
    // First in the file: nothing has been created on this gateway yet.
    const page = await openPage();
    await signIn(page, ADMIN_KEY, '#/compliance');
    const history = page.locator('#history');
    await history.getByTestId('history-empty').waitFor();
    expect(await history.getByTestId('history-empty').textContent()).toContain('Not enough history yet');
    expect(await history.locator('.chart, canvas').count()).toBe(0);
    await page.getByText('No requirements yet: add the first with “New requirement”.').waitFor();
    await page.getByText('No audit findings recorded yet.').waitFor();
    await page.getByTestId('live-feed').getByText('No changes since this page opened').waitFor();
    await page.getByTestId('recent-activity').getByText('No activity yet').waitFor();
    // A filter that matches nothing says so, not that there is nothing.
    await page.locator('#req-priority').selectOption('low');
    await page.getByText('No requirements match these filters.').waitFor();
    await page.goto(`${gw.url}/#/speech`);
    await page.getByTestId('cache-stats').getByText('Cache: empty.').waitFor();
    await page.locator('#speech-stats').getByText('Nothing generated yet').waitFor();
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
    // "Recent activity" too, from the event itself: its line names the change and who made it.
    const activity = page.getByTestId('recent-activity').locator('li', { hasText: 'Created requirement "Review access rights every quarter" (SOC2)' });
    await activity.waitFor();
    expect(await activity.textContent()).toContain('by admin');
    await api('mutation($id: String!) { updateRequirement(id: $id, input: { status: COMPLETED }) { id } }', { id: createRequirement.id });
    await page.waitForFunction((prev) => document.querySelector('[data-testid="score-soc2"] [data-testid="score-value"]')?.textContent !== prev, before, {
      timeout: 10_000,
    });
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
    const refused = await item.getByRole('alert').textContent();
    expect(refused).toContain('Some of what you entered is not valid.');
    expect(refused).toContain('VALIDATION_ERROR');
    await item.getByLabel('Resolution').fill('Monthly restore drill added to the runbook');
    await item.getByRole('button', { name: 'Resolve' }).click();
    await item.getByText('Resolution: Monthly restore drill added to the runbook').waitFor();
    const { findings } = await api('{ findings(filter: { framework: ISO13485 }) { data { title status evidence } } }');
    expect(findings.data).toContainEqual({
      title: 'Backups are not tested',
      status: 'RESOLVED',
      evidence: ['backup-log-2026-10.txt', 'restore-drill-plan.pdf'],
    });
    await page.close();
  });

  test('history: the chart follows the period, metric and framework', async () => {
    // Readings of earlier days (the API records only today's; history is never invented by it).
    const conn = gw.db.orm.em.getConnection();
    for (const [days, framework] of [
      [3, null],
      [9, null],
      [3, 'gdpr'],
      [9, 'gdpr'],
    ] as const) {
      await conn.execute(
        `insert into metric_snapshots (id, taken_at, framework, compliance_score, requirement_completion, validation_rate) values (?, ?, ?, 40, 30, 20)`,
        [`snap_console_${days}_${framework ?? 'all'}`, new Date(Date.now() - days * 86_400_000).toISOString(), framework],
      );
    }
    const page = await openPage();
    await signIn(page, ADMIN_KEY, '#/compliance');
    const history = page.locator('#history');
    await history.locator('.chart canvas').waitFor();
    expect(await history.getByTestId('history-empty').count()).toBe(0);
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
    expect(
      fs
        .readFileSync((await pdf.path())!)
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
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
      // Progressive: the stream is fetched with the key (an <audio> element cannot send one) and played as it ends.
      const streams: { authorization?: string; kind: string }[] = [];
      page.on('request', (r) => {
        if (/\/stream$/.test(r.url())) streams.push({ authorization: r.headers().authorization, kind: r.resourceType() });
      });
      await page.getByLabel('Text', { exact: true }).fill('Keyed progressive speech, in more than one chunk. '.repeat(12).trim());
      await page.getByRole('button', { name: 'Generate (progressive)' }).click();
      await page.getByTestId('cache-state').waitFor({ timeout: 30_000 });
      expect(streams).toEqual([{ authorization: `Bearer ${ADMIN_KEY}`, kind: 'fetch' }]);
      expect(await page.getByTestId('audio').evaluate((el: HTMLAudioElement) => el.src)).toMatch(/^blob:/);
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
    await page.getByTestId('cache-state').waitFor({ timeout: 30_000 });
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

  test('progressive speech plays from the stream `started` names, requested before COMPLETE', async () => {
    // Each mock call takes 2 s, so COMPLETE comes seconds after `started`.
    const slow = await startGateway({ MOCK_LATENCY_MS: '2000' });
    try {
      const page = await openPage();
      const seen: { what: string; at: number; url?: string; kind?: string }[] = [];
      page.on('request', (r) => {
        if (/\/api\/v1\/audio\/[^/]+\/stream$/.test(r.url()))
          seen.push({ what: 'stream', at: Date.now(), url: new URL(r.url()).pathname, kind: r.resourceType() });
      });
      page.on('websocket', (ws) =>
        ws.on('framereceived', ({ payload }) => {
          const text = String(payload);
          if (text.includes('"generateProgressive"')) {
            const type = /"type":"(STARTED|PROGRESS|COMPLETE|ERROR)"/.exec(text)?.[1] ?? 'other';
            const url = /"streamUrl":"([^"]+)"/.exec(text)?.[1];
            seen.push({ what: type, at: Date.now(), url });
          }
        }),
      );
      await page.goto(`${slow.url}/#/speech`);
      await page.getByLabel('API key').fill(ADMIN_KEY);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const text = Array.from({ length: 12 }, (_, i) => `Sentence number ${i + 1} of a text long enough to be made in several chunks, one after another.`).join(
        ' ',
      );
      await page.getByLabel('Text', { exact: true }).fill(text);
      await page.getByRole('button', { name: 'Generate (progressive)' }).click();
      // Playing while the rest is made: the player is there, on the stream, before the outcome is known.
      await page.getByTestId('stream-state').waitFor();
      const src = await page.getByTestId('audio').getAttribute('src');
      await page.getByTestId('cache-state').waitFor({ timeout: 30_000 });
      expect(await page.getByTestId('cache-state').textContent()).toBe('Newly generated');

      const started = seen.find((e) => e.what === 'STARTED');
      const stream = seen.find((e) => e.what === 'stream');
      const complete = seen.find((e) => e.what === 'COMPLETE');
      expect(started?.url).toMatch(/^\/api\/v1\/audio\/[0-9a-f]+\/stream$/);
      expect(src).toBe(started!.url);
      // The <audio> element itself asked for the stream, after `started` and before COMPLETE.
      expect(stream).toMatchObject({ url: started!.url, kind: 'media' });
      expect(seen.map((e) => e.what).filter((w) => w !== 'PROGRESS')).toEqual(['STARTED', 'stream', 'COMPLETE']);
      expect(complete!.at - stream!.at).toBeGreaterThan(1000);
      // The same element plays the whole audio: it keeps the stream, which ended with the file.
      expect(await page.getByTestId('audio').getAttribute('src')).toBe(src);
      const duration = await page.getByTestId('audio').evaluate(
        (el: HTMLAudioElement) =>
          new Promise<number>((resolve, reject) => {
            if (el.readyState >= 1) return resolve(el.duration);
            el.addEventListener('loadedmetadata', () => resolve(el.duration), { once: true });
            el.addEventListener('error', () => reject(new Error(`audio error ${el.error?.code}`)), { once: true });
          }),
      );
      expect(duration).toBeGreaterThan(0);
      await page.close();
    } finally {
      await slow.close();
    }
  });

  test("the playground's defaults are the API's: a request left as it is equals one that names no option", async () => {
    const text = 'Defaults are the same everywhere.';
    // Another client asks for this text naming no option at all.
    const rest = await gw.request('/api/v1/generate', { method: 'POST', json: { text } });
    expect(rest.status).toBe(200);
    const page = await openPage();
    await signIn(page, ADMIN_KEY, '#/speech');
    const providers: any[] = (await (await gw.request('/api/v1/providers')).json()).providers;
    const mock = providers.find((p) => p.name === 'mock');
    expect(mock.default).toBe(true);
    expect(await page.locator('#speech-provider').inputValue()).toBe('MOCK');
    expect(await page.locator('#speech-quality').inputValue()).toBe('MEDIUM');
    expect(await page.locator('#speech-voice').inputValue()).toBe(mock.defaults.voice);
    expect(await page.locator('#speech-format').inputValue()).toBe(mock.defaults.format.toUpperCase());
    expect(Number(await page.locator('#speech-speed').inputValue())).toBe(mock.defaults.speed);
    await page.getByLabel('Text', { exact: true }).fill(text);
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    // Same request, so the same hash: the console's Generate is answered from the cache.
    await page.getByTestId('cache-state').waitFor();
    expect(await page.getByTestId('cache-state').textContent()).toBe('From the cache');
    expect(await page.getByTestId('played').locator('code').textContent()).toBe(((await rest.json()) as any).hash);
    // Another provider's defaults when switching to it: provider_a's quality is its own `standard`.
    await page.locator('#speech-provider').selectOption('PROVIDER_A');
    expect(await page.locator('#speech-quality').inputValue()).toBe('STANDARD');
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
    expect(await page.getByTestId('permissions').locator('li').allTextContents()).toEqual([
      'read:requirements',
      'read:compliance',
      'read:audits',
      'read:dashboard',
    ]);
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
    // Listed at once, with what it may do; revoking asks first.
    const listed = page.getByTestId('api-key').filter({ hasText: 'console reader' });
    await listed.getByText('read:requirements').waitFor();
    await listed.getByRole('button', { name: /^Revoke console reader/ }).click();
    await listed.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('Revoked “console reader”, and every key it issued.').waitFor();
    // The list is read again after the revocation: the key leaves it (a timeout here is the failure).
    await page.waitForFunction(() => !Array.from(document.querySelectorAll('[data-testid="api-key"]')).some((e) => e.textContent?.includes('console reader')));
    expect(await page.getByTestId('api-key').filter({ hasText: 'console reader' }).count()).toBe(0);
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

  test('administration lists the keys issued elsewhere (over REST), with issuer, permissions and expiry, and revokes them', async () => {
    // Issued over REST by the admin: a manager of keys, which issues one key of its own.
    const manager = await mintKey(gw, { name: 'team manager', permissions: ['manage:api-keys', 'read:compliance', 'read:audits'], expiresIn: '30d' });
    const child = await mintKey(gw, { name: 'ci reader', permissions: ['read:compliance'] }, manager.key);

    // The admin sees every key: the manager's row names its issuer, permissions and expiry.
    const page = await openPage();
    await signIn(page, ADMIN_KEY, '#/admin');
    const row = page.locator(`[data-testid="api-key"][data-key-id="${manager.id}"]`);
    await row.waitFor();
    const expires = await page.evaluate((iso) => new Date(iso).toLocaleString(), manager.expiresAt!);
    const text = (await row.textContent())!;
    expect(text).toContain('team manager');
    expect(text).toContain('Issued by the admin key (you)');
    expect(text).toContain(`expires ${expires}`);
    expect(await row.locator('.key-permissions code').allTextContents()).toEqual(['manage:api-keys', 'read:compliance', 'read:audits']);
    const childRow = page.locator(`[data-testid="api-key"][data-key-id="${child.id}"]`);
    expect(await childRow.textContent()).toContain('Issued by team manager');
    // A key never outlives its issuer: its expiry is the manager's.
    expect(await childRow.textContent()).toContain(`expires ${expires}`);
    const forever = await mintKey(gw, { name: 'no expiry', permissions: ['read:audits'] });
    // A key issued while the page is open appears on Refresh.
    const later = await mintKey(gw, { name: 'issued while open', permissions: ['read:audits'] });
    await page.getByRole('button', { name: 'Refresh' }).first().click();
    await page.locator(`[data-testid="api-key"][data-key-id="${later.id}"]`).waitFor();
    expect(await page.locator(`[data-testid="api-key"][data-key-id="${forever.id}"]`).textContent()).toContain('never expires');
    await page.close();

    // The manager sees only the keys it issued, and may revoke them.
    const managerPage = await openPage();
    await signIn(managerPage, manager.key, '#/admin');
    await managerPage.locator(`[data-testid="api-key"][data-key-id="${child.id}"]`).waitFor();
    expect(await managerPage.getByTestId('api-key').count()).toBe(1);
    await managerPage.getByRole('button', { name: /^Revoke ci reader/ }).click();
    // Cancel leaves it be; confirming revokes it.
    await managerPage.getByRole('button', { name: 'Cancel' }).click();
    expect(await managerPage.getByTestId('api-key').count()).toBe(1);
    await managerPage.getByRole('button', { name: /^Revoke ci reader/ }).click();
    // The confirmation takes the focus once it is drawn (an effect after the render the click caused).
    await managerPage.waitForFunction(() => document.activeElement?.textContent === 'Revoke key');
    expect(await managerPage.evaluate(() => document.activeElement?.textContent)).toBe('Revoke key');
    await managerPage.keyboard.press('Enter');
    await managerPage.getByText('No active keys.').waitFor();
    // Revoked keys are kept out of the way, and shown as such on demand.
    await managerPage.getByLabel(/Show revoked and expired keys \(1\)/).check();
    const revoked = managerPage.locator(`[data-testid="api-key"][data-key-id="${child.id}"]`);
    expect(await revoked.getAttribute('data-state')).toBe('revoked');
    expect(await revoked.getByRole('button').count()).toBe(0);
    const refused = await gw.request('/graphql', { method: 'POST', json: { query: '{ viewer { name } }' }, auth: child.key });
    expect(((await refused.json()) as any).errors[0].extensions.code).toBe('AUTHENTICATION_ERROR');
    await managerPage.close();
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
          violations: result.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, help: v.help })) as {
            id: string;
            impact: string;
            nodes: number;
            help: string;
          }[],
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
      i: {
        title: 'Audit log export lacks signatures',
        framework: 'FDA21CFR11',
        severity: 'HIGH',
        description: 'Exported audit logs carry no signature manifest.',
        evidence: ['audit-2026-11.pdf, p. 4'],
      },
    });
    const page = await openPage();
    await signIn(page, ADMIN_KEY, '#/compliance');
    // A report of this tab, so the reports list shows one.
    await page.getByRole('button', { name: 'Request report' }).click();
    await page.locator('[data-testid="report"][data-status="completed"]').first().waitFor({ timeout: 30_000 });
    for (const [width, label] of [
      [1280, 'desktop'],
      [390, 'mobile'],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      for (const route of ['compliance', 'speech', 'admin']) {
        await page.goto(`${gw.url}/#/${route}`);
        await page.locator('main h1').waitFor();
        await page.waitForLoadState('networkidle');
        if (route === 'speech') await page.waitForFunction(() => document.querySelector('[data-testid="estimate"]')?.textContent?.startsWith('Estimated cost'));
        const { overflow, widest } = await page.evaluate(() => {
          const box = document.documentElement;
          // The innermost elements that stick out, so a failure says what to fix.
          const overflow = box.scrollWidth - box.clientWidth;
          const out = overflow
            ? Array.from(document.querySelectorAll('body *')).filter((e) => e.getBoundingClientRect().right > box.clientWidth + 1 && !e.querySelector('*'))
            : [];
          return { overflow, widest: out.slice(0, 3).map((e) => e.outerHTML.slice(0, 160)) };
        });
        expect({ route, width, overflow, widest }).toEqual({ route, width, overflow: 0, widest: [] });
        if (shots) await page.screenshot({ path: path.join(shots, `${route}-${label}.png`), fullPage: true });
      }
    }
    if (shots) {
      await page.setViewportSize({ width: 1280, height: 900 });
      const signin = await openPage();
      for (const [width, label] of [
        [1280, 'desktop'],
        [390, 'mobile'],
      ] as const) {
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
