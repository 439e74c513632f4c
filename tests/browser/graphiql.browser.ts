import { ADMIN_KEY, startGateway, type TestGateway } from '../helpers/gateway';
import { launchBrowser } from './browser';

/**
 * GraphiQL at /graphql works with no network beyond the gateway: every request the page makes
 * goes to the gateway's own address (anything else is refused and recorded), a query runs, and a
 * subscription started in it receives an event made by another client.
 */
let gw: TestGateway;
let browser: Awaited<ReturnType<typeof launchBrowser>>;

beforeAll(async () => {
  gw = await startGateway();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

async function openIde(query: string) {
  const page = await browser.context.newPage();
  const elsewhere: string[] = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin === gw.url) return route.continue();
    elsewhere.push(url.href);
    return route.abort();
  });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const headers = JSON.stringify({ Authorization: `Bearer ${ADMIN_KEY}` });
  await page.goto(`${gw.url}/graphql?query=${encodeURIComponent(query)}&headers=${encodeURIComponent(headers)}`);
  await page.waitForSelector('.graphiql-container', { timeout: 30_000 });
  return { page, elsewhere, errors };
}

test('a browser opening /graphql gets GraphiQL from the gateway alone, and a query runs', async () => {
  const { page, elsewhere, errors } = await openIde('query { frameworks { id name } }');
  await page.click('.graphiql-execute-button');
  await page.waitForFunction(() => document.querySelector('.graphiql-response')?.textContent?.includes('ISO13485'), undefined, { timeout: 30_000 });
  expect(await page.textContent('.graphiql-response')).toContain('"frameworks"');
  expect(elsewhere).toEqual([]);
  expect(errors).toEqual([]);
  await page.close();
});

test("a subscription started in GraphiQL receives another client's change over graphql-ws", async () => {
  const { page, elsewhere, errors } = await openIde('subscription { complianceEvents { type } }');
  await page.click('.graphiql-execute-button');
  // The subscription is registered when the socket is open and subscribed; keep making changes until one arrives.
  let received = false;
  for (let i = 0; i < 90 && !received; i++) {
    const res = await gw.request('/v1/requirements', { method: 'POST', json: { title: `Seen live in GraphiQL ${i}`, framework: 'soc2', priority: 'low' } });
    expect(res.status).toBe(201);
    received = await page
      .waitForFunction(() => /"type":\s*"REQUIREMENT_(CREATED|UPDATED)"/.test(document.querySelector('.graphiql-response')?.textContent ?? ''), undefined, {
        timeout: 500,
      })
      .then(
        () => true,
        () => false,
      );
  }
  if (!received) console.log('response pane:', await page.textContent('.graphiql-response'));
  expect(received).toBe(true);
  expect(elsewhere).toEqual([]);
  expect(errors).toEqual([]);
  await page.close();
});
