import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { startWebhookReceiver } from '../helpers/webhook-receiver';
import { issueKey, sqlOf, useGateway, type TestGateway } from '../helpers/gateway';
import { waitFor } from '../helpers/wait';

/**
 * Issue 37 findings 1, 4 and 5: a per-key webhook cap; one payload per event; deliveries shared
 * fairly between owners and receivers, for compliance webhooks and speech callbacks alike, so a
 * receiver that never answers delays nobody else's delivery by more than one timeout (10 s).
 */
const gw = useGateway({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_MAX_PER_KEY: '120', MOCK_LATENCY_MS: '40' });

/** A receiver that accepts connections and never answers (a dead or hung endpoint). */
async function startBlackHole() {
  const sockets = new Set<Socket>();
  let requests = 0;
  const server = http.createServer(() => void requests++);
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return requests;
    },
    close: () => new Promise<void>((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))),
  };
}

const register = (g: TestGateway, key: string, url: string) =>
  g.request('/v1/webhooks', { method: 'POST', auth: key, json: { url, events: ['requirement.created'] } });

test('a key may have WEBHOOK_MAX_PER_KEY active webhooks; the next is refused with 409 WEBHOOK_LIMIT_EXCEEDED, on REST and GraphQL', async () => {
  const key = await issueKey(gw, ['manage:webhooks', 'read:requirements']);
  const t0 = Date.now();
  for (let i = 0; i < 10; i++) expect((await register(gw, key, `https://example.com/hook/${i}`)).status).toBe(201);
  console.log(`10 registrations: ${Date.now() - t0} ms`);
  // The other 110 straight into the table (the cap counts rows, however they came).
  const [{ id: keyId }] = await sqlOf(gw)(`select owner_key_id as id from webhooks where url = 'https://example.com/hook/0'`);
  await sqlOf(gw)(
    `insert into webhooks (id, url, events, secret, owner_key_id, active, created_at, receiver)
     select 'whk_bulk_' || g, 'https://example.com/hook/b' || g, '["requirement.created"]', 'whsec_0123456789abcdef', ?, true, now(), 'https://example.com' from generate_series(1, 110) g`,
    [keyId],
  );
  const refused = await register(gw, key, 'https://example.com/hook/one-too-many');
  expect(refused.status).toBe(409);
  const body: any = await refused.json();
  expect(body.error).toMatchObject({ code: 'WEBHOOK_LIMIT_EXCEEDED' });
  expect(body.error.message).toMatch(/120/);
  const gql: any = await (
    await gw.request('/graphql', {
      method: 'POST',
      auth: key,
      json: { query: 'mutation { createWebhook(input: {url: "https://example.com/gql", events: [REQUIREMENT_CREATED]}) { id } }' },
    })
  ).json();
  expect(gql.errors[0].extensions).toMatchObject({ code: 'WEBHOOK_LIMIT_EXCEEDED', status: 409 });
  // Deleting one makes room again.
  const { data } = (await (await gw.request('/v1/webhooks', { auth: key })).json()) as any;
  expect((await gw.request(`/v1/webhooks/${data[0].id}`, { method: 'DELETE', auth: key })).status).toBe(204);
  expect((await register(gw, key, 'https://example.com/hook/again')).status).toBe(201);
  await sqlOf(gw)(`update webhooks set active = false`);
});

test("one owner's 100 webhooks at a receiver that never answers do not hold another owner's delivery (< one 10 s timeout)", async () => {
  const dead = await startBlackHole();
  const good = await startWebhookReceiver();
  const hog = await issueKey(gw, ['manage:webhooks', 'read:requirements']);
  const other = await issueKey(gw, ['manage:webhooks', 'read:requirements']);
  try {
    for (let i = 0; i < 100; i++) expect((await register(gw, hog, `${dead.url}/hang/${i}`)).status).toBe(201);
    expect((await register(gw, other, `${good.url}/other`)).status).toBe(201);
    const started = Date.now();
    const created = await gw.request('/v1/requirements', { method: 'POST', json: { title: 'Fair delivery', framework: 'gdpr' } });
    expect(created.status).toBe(201);
    // One payload for the event, however many webhooks it goes to.
    const sql = sqlOf(gw);
    const events = await sql(`select id, payload from webhook_events where type = 'requirement.created' order by created_at desc limit 1`);
    expect(events).toHaveLength(1);
    // Expanded by the worker into one delivery per webhook, none of which carries the payload again.
    await waitFor(
      async () => ((await sql(`select count(*)::int as n from webhook_deliveries where event_id = ?`, [events[0].id]))[0].n === 101 ? true : undefined),
      9_000,
      'the expansion',
    );
    const got = await waitFor(() => good.received.find((r) => r.path === '/other'), 9_000, "the other owner's delivery");
    expect(got.at - started).toBeLessThan(9_000);
    // The dead receiver got at most its share at once (per-receiver concurrency 2).
    expect(dead.requests).toBeLessThanOrEqual(2);
    const [{ n }] = await sql(`select count(*)::int as n from webhook_deliveries where event_id = ? and payload is not null`, [events[0].id]);
    expect(n).toBe(0);
  } finally {
    await sqlOf(gw)(`update webhooks set active = false`);
    await sqlOf(gw)(`update webhook_deliveries set status = 'failed' where status = 'pending'`);
    await dead.close();
    await good.close();
  }
}, 60_000);

test("one caller's callbacks that never answer, and its backlog of generations, do not starve another caller", async () => {
  const dead = await startBlackHole();
  const good = await startWebhookReceiver();
  const hog = await issueKey(gw, ['tts:generate', 'tts:read']);
  const other = await issueKey(gw, ['tts:generate', 'tts:read']);
  try {
    const submit = async (key: string, text: string, url: string) => {
      const res = await gw.request('/api/v1/generate', { method: 'POST', auth: key, json: { text, options: { provider: 'mock' }, webhook: { url } } });
      expect(res.status).toBe(202);
      return (await res.json()) as any;
    };
    // Ten callbacks that hang first, then a backlog of thirty more generations of the same caller.
    for (let i = 0; i < 10; i++) await submit(hog, `Hanging callback number ${i}.`, `${dead.url}/hang/${i}`);
    await waitFor(() => dead.requests >= 2, 15_000, 'the hanging callbacks to start');
    for (let i = 0; i < 30; i++) await submit(hog, `Backlog generation number ${i} of the same caller.`, `${dead.url}/backlog/${i}`);
    const started = Date.now();
    const mine = await submit(other, 'Another caller is served meanwhile.', `${good.url}/other`);
    const got = await waitFor(() => good.received.find((r) => r.path === '/other'), 9_000, "the other caller's callback");
    expect(got.at - started).toBeLessThan(9_000);
    expect(got.body).toMatchObject({ hash: mine.hash });
    // Most of the first caller's backlog is still waiting: the other caller did not queue behind it.
    const [{ n }] = await sqlOf(gw)(`select count(*)::int as n from jobs where type = 'tts.generate' and status in ('queued', 'running')`);
    expect(n).toBeGreaterThan(10);
  } finally {
    await dead.close();
    await good.close();
  }
}, 60_000);
