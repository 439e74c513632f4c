import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startGateway, type TestGateway } from '../helpers/gateway';

/**
 * A webhook receiver is away (port closed, then answering 503) while requirements change. Backoff is
 * compressed (200 ms base, 2 s cap) so ~12 s stand for the minute. Once it is back, every
 * event arrives exactly once with a valid signature: none lost, none delivered twice.
 */
const SECRET = 'receiver-down-secret-0123456789abcdef';
const CLOSED_MS = 6000;
const UNAVAILABLE_MS = 6000;

interface Arrival {
  webhookId: string;
  signature: string;
  timestamp: string;
  raw: string;
  answered: number;
}

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  Object.assign((gw.services as any).webhookDelivery.settings, { baseDelayMs: 200, maxDelayMs: 2000, pollIntervalMs: 100 });
  // The receiver's circuit breaker (issue 37) on the same compressed time scale.
  Object.assign((gw.services as any).deliveryGate.settings, { cooldownMs: 200, maxCooldownMs: 2000 });
}, 60_000);
afterAll(async () => {
  await gw?.close();
});

/** The receiver: its port can be closed and reopened; `status` is what it answers while open. */
function receiverOn(port: number, arrivals: Arrival[], state: { status: number }) {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      arrivals.push({
        webhookId: String(req.headers['webhook-id']),
        signature: String(req.headers['x-service-signature']),
        timestamp: String(req.headers['webhook-timestamp']),
        raw: Buffer.concat(chunks).toString('utf8'),
        answered: state.status,
      });
      res.statusCode = state.status;
      res.end();
    });
  });
  return new Promise<http.Server>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

const close = (server: http.Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

test('deliveries made while the receiver is down all arrive once, signed, after it returns', async () => {
  const arrivals: Arrival[] = [];
  const state = { status: 200 };
  let server = await receiverOn(0, arrivals, state);
  const port = (server.address() as AddressInfo).port;
  const hook: any = await (
    await gw.request('/v1/webhooks', {
      method: 'POST',
      json: { url: `http://127.0.0.1:${port}/hooks`, events: ['requirement.created', 'requirement.updated'], secret: SECRET },
    })
  ).json();
  expect(hook.id).toBeDefined();

  await close(server); // down: connection refused
  const downSince = Date.now();
  const created: string[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await gw.request('/v1/requirements', { method: 'POST', json: { title: `Backup restore drill ${i}`, framework: 'soc2' } });
    expect(res.status).toBe(201);
    created.push(((await res.json()) as any).id);
  }
  for (const id of created) {
    expect((await gw.request(`/v1/requirements/${id}`, { method: 'PUT', json: { status: 'in-progress' } })).status).toBe(200);
  }
  await new Promise((r) => setTimeout(r, Math.max(0, CLOSED_MS - (Date.now() - downSince))));

  state.status = 503; // back on the network but still unhealthy
  server = await receiverOn(port, arrivals, state);
  await new Promise((r) => setTimeout(r, UNAVAILABLE_MS));
  const refusedAttempts = arrivals.length;
  state.status = 200;
  const healthySince = Date.now();

  try {
    // Wait until every delivery the outbox holds for this hook is delivered.
    let deliveries: any[] = [];
    for (;;) {
      deliveries = ((await (await gw.request(`/v1/webhooks/${hook.id}/deliveries?limit=100`)).json()) as any).data;
      if (deliveries.length >= 10 && deliveries.every((d) => d.status === 'delivered')) break;
      if (Date.now() - healthySince > 20_000) throw new Error(`not all delivered: ${JSON.stringify(deliveries.map((d) => [d.status, d.attempts]))}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 1000)); // a duplicate would arrive in this time

    const accepted = arrivals.filter((a) => a.answered === 200);
    const eventIds = deliveries.map((d) => d.eventId).sort();
    expect(deliveries).toHaveLength(10); // 5 created + 5 updated
    const perId = new Map<string, number>();
    for (const a of accepted) perId.set(a.webhookId, (perId.get(a.webhookId) ?? 0) + 1);
    expect([...perId.keys()].sort()).toEqual(eventIds); // none lost
    expect([...perId.values()].every((n) => n === 1)).toBe(true); // none twice
    for (const a of accepted) {
      const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(a.signature);
      expect(m).not.toBeNull();
      expect(m![2]).toBe(createHmac('sha256', SECRET).update(`${m![1]}.${a.raw}`).digest('hex'));
      expect(Math.abs(Number(m![1]) - Date.now() / 1000)).toBeLessThan(60); // signed afresh, not when first tried
    }
    const bodies = accepted.map((a) => JSON.parse(a.raw));
    expect(
      bodies
        .filter((b) => b.type === 'requirement.created')
        .map((b) => b.data.id)
        .sort(),
    ).toEqual([...created].sort());
    expect(
      bodies
        .filter((b) => b.type === 'requirement.updated')
        .map((b) => b.data.id)
        .sort(),
    ).toEqual([...created].sort());
    // The outage was real: deliveries needed more than one attempt and the 503 phase was hit.
    expect(refusedAttempts).toBeGreaterThan(0);
    // Deliveries that waited behind the receiver's open circuit (issue 37) were not attempted while it
    // was down, so some arrive at their first attempt; the ones tried during the outage needed more.
    expect(deliveries.some((d) => d.attempts > 1)).toBe(true);
    console.log(
      `receiver down: ${arrivals.length} requests received (${refusedAttempts} answered 503), ${accepted.length} accepted; attempts per delivery ${deliveries.map((d) => d.attempts).join(',')}`,
    );
  } finally {
    await close(server);
  }
});
