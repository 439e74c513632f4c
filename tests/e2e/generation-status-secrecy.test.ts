import { startWebhookReceiver } from '../helpers/webhook-receiver';
import { issueKey, useGateway } from '../helpers/gateway';
import { waitFor } from '../helpers/wait';

/**
 * Issue 37 finding 10: the status of an asynchronous generation showed another client's webhook
 * target (in `webhook.lastError`). It shows the webhook's state to anyone who may read the status,
 * and its error text only to the caller that set the webhook, on REST, GraphQL and tRPC alike.
 */
const gw = useGateway({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });

test('only the caller that set a webhook sees its error text; others see its state alone', async () => {
  Object.assign((gw.services as any).speechDeliveries.settings, { retryBaseMs: 100, maxRetryDelayMs: 300 });
  const owner = await issueKey(gw, ['tts:generate', 'tts:read']);
  const other = await issueKey(gw, ['tts:generate', 'tts:read']);
  const down = await startWebhookReceiver();
  await down.close(); // nothing listens: every attempt fails with an error naming the address
  const port = new URL(down.url).port;
  const res = await gw.request('/api/v1/generate', {
    method: 'POST',
    auth: owner,
    json: { text: 'A generation whose webhook target is secret.', options: { provider: 'mock' }, webhook: { url: `${down.url}/private-target` } },
  });
  expect(res.status).toBe(202);
  const { hash, statusUrl }: any = await res.json();

  const mine: any = await waitFor(async () => {
    const s: any = await (await gw.request(statusUrl, { auth: owner })).json();
    return s.webhook?.attempts >= 1 && s.webhook.lastError ? s : undefined;
  });
  expect(mine.webhook.lastError).toEqual(expect.any(String));

  const theirs: any = await (await gw.request(statusUrl, { auth: other })).json();
  expect(theirs.webhook).toMatchObject({ status: 'pending', lastError: null });
  expect(theirs.webhook.attempts).toBeGreaterThanOrEqual(1);
  expect(JSON.stringify(theirs)).not.toContain(port);
  expect(JSON.stringify(theirs)).not.toContain('private-target');

  const gql: any = await (
    await gw.request('/graphql', {
      method: 'POST',
      auth: other,
      json: { query: 'query($h: String!) { generation(hash: $h) { status webhook { status attempts lastError } } }', variables: { h: hash } },
    })
  ).json();
  expect(gql.data.generation.webhook).toMatchObject({ lastError: null });
  expect(JSON.stringify(gql)).not.toContain(port);

  const trpc: any = await (await gw.request(`/trpc/tts.generation?input=${encodeURIComponent(JSON.stringify({ hash }))}`, { auth: other })).json();
  expect(trpc.result.data.webhook).toMatchObject({ lastError: null });
  expect(JSON.stringify(trpc)).not.toContain(port);

  const anonymous: any = await (await gw.request(statusUrl, { auth: null })).json();
  expect(JSON.stringify(anonymous)).not.toContain(port);
});
