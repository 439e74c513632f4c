import { issueKey, sqlOf, useGateway } from '../helpers/gateway';
import { startWebhookReceiver } from '../helpers/webhook-receiver';

/**
 * Issue 37 finding 1, the repro with its figures: a key with `manage:webhooks` registers 990
 * webhooks for `requirement.created` (the cap raised to 1,000 for this test), then another key
 * creates a batch of 100 requirements with 8,000-character descriptions. Before, the gateway went
 * from 164 MB to 4.3 GB and died of heap exhaustion without storing the batch; now the batch is
 * stored, its 100 events are stored once each, and the gateway's RSS stays under 600 MB.
 */
const gw = useGateway({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_MAX_PER_KEY: '1000' });

test('990 webhooks × a batch of 100 large requirements: the batch is stored and RSS stays under 600 MB', async () => {
  const receiver = await startWebhookReceiver();
  // The gateway runs in this jest worker, whose RSS also holds what earlier test files left: the
  // budget is on what this test adds. The issue's gateway started at 164 MB, so "under 600 MB" is at
  // most 436 MB added (alone, this file's worker peaks well under 600 MB in absolute terms too).
  const start = process.memoryUsage().rss;
  let peak = start;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 25);
  try {
    const hooks = await issueKey(gw, ['manage:webhooks', 'read:requirements']);
    const writer = await issueKey(gw, ['write:requirements', 'read:requirements']);

    const description = 'A requirement described at length. '.repeat(229).slice(0, 8000);
    const batch = (tag: string) => ({ requirements: Array.from({ length: 100 }, (_, i) => ({ title: `${tag} ${i}`, description, framework: 'gdpr' })) });
    // The same batch with no webhook at all, for comparison in the same run.
    const t0 = Date.now();
    const baseline = await gw.request('/v1/requirements/batch', { method: 'POST', auth: writer, json: batch('Baseline') });
    expect(baseline.status).toBeLessThan(300);
    console.log(`baseline batch (no webhooks) ${Date.now() - t0} ms`);
    // 30 registered through the API, the other 960 written straight into the table alike (registering
    // all of them through the API costs ~100 s of test time and is not what this test measures).
    for (let i = 0; i < 30; i++) {
      const a = await gw.request('/v1/webhooks', { method: 'POST', auth: hooks, json: { url: `${receiver.url}/h/${i}`, events: ['requirement.created'] } });
      expect(a.status).toBe(201);
    }
    const sql = sqlOf(gw);
    const [{ owner }] = await sql(`select owner_key_id as owner from webhooks where url = ?`, [`${receiver.url}/h/0`]);
    await sql(
      `insert into webhooks (id, url, events, secret, owner_key_id, active, created_at, receiver)
       select 'whk_fan_' || g, ? || '/h/' || g, '["requirement.created"]', 'whsec_0123456789abcdef0123', ?, true, now(), ? from generate_series(30, 989) g`,
      [receiver.url, owner, receiver.url],
    );
    const before = process.memoryUsage().rss;
    const started = Date.now();
    const res = await gw.request('/v1/requirements/batch', { method: 'POST', auth: writer, json: batch('Fan-out') });
    const elapsed = Date.now() - started;
    console.log(`batch answered ${res.status} in ${elapsed} ms`);
    expect(res.status).toBeLessThan(300);
    const [{ n }] = await sql(`select count(*)::int as n from requirements where title like 'Fan-out %'`);
    expect(n).toBe(100);
    // One row per event, the payload once, nobody excluded: it goes to all 990 webhooks.
    const events = await sql(
      `select count(*)::int as n, max(jsonb_array_length(excluded))::int as excluded from webhook_events where type = 'requirement.created'`,
    );
    expect(events[0]).toMatchObject({ n: 100, excluded: 0 });
    // The worker expands the fan-out in pages while deliveries flow.
    await new Promise((r) => setTimeout(r, 3000));
    const [{ d }] = await sql(`select count(*)::int as d from webhook_deliveries`);
    expect(d).toBeGreaterThan(0);
    console.log(
      `fan-out: batch ${elapsed} ms, RSS at start ${Math.round(start / 2 ** 20)} MB, before the batch ${Math.round(before / 2 ** 20)} MB, peak ${Math.round(peak / 2 ** 20)} MB, ${d} deliveries expanded so far, ${receiver.received.length} sent`,
    );
    expect(peak - start).toBeLessThan((600 - 164) * 2 ** 20);
  } finally {
    clearInterval(sampler);
    await sqlOf(gw)(`update webhooks set active = false`).catch(() => undefined);
    await receiver.close();
  }
}, 300_000);
