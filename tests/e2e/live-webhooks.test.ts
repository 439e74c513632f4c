import { issueKey, startGateway, type TestGateway } from '../helpers/gateway';
import { signedAt, startWebhookReceiver, type ReceivedDelivery } from '../helpers/webhook-receiver';
import { waitFor } from '../helpers/wait';

/** The signature's time; fails the test when the signature is not valid for `secret`. */
function verifySignature(secret: string, header: string, raw: string): number {
  const t = signedAt(secret, header, raw);
  expect(t).not.toBeNull();
  return t!;
}

let gw: TestGateway;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  gw = await startGateway({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  receiver = await startWebhookReceiver();
  (gw.services as any).webhookDelivery.settings.baseDelayMs = 100;
});

afterAll(async () => {
  await gw?.close();
  await receiver?.close();
});

test('registration returns the secret once; a requirement change is POSTed signed, with the documented headers', async () => {
  const res = await gw.request('/v1/webhooks', {
    method: 'POST',
    json: { url: `${receiver.url}/hooks/a`, events: ['requirement.created', 'requirement.updated'] },
  });
  expect(res.status).toBe(201);
  const hook: any = await res.json();
  expect(hook).toEqual({
    id: expect.stringMatching(/^whk_/),
    url: `${receiver.url}/hooks/a`,
    events: ['requirement.created', 'requirement.updated'],
    secret: expect.any(String),
    createdAt: expect.any(String),
  });
  expect(hook.secret.length).toBeGreaterThanOrEqual(32);
  const listed: any = await (await gw.request('/v1/webhooks')).json();
  expect(listed.data).toEqual([{ id: hook.id, url: hook.url, events: hook.events, createdAt: hook.createdAt }]);

  const created = await gw.request('/v1/requirements', {
    method: 'POST',
    json: { title: 'Encrypt personal data at rest', framework: 'gdpr', priority: 'high' },
  });
  expect(created.status).toBe(201);
  const requirement: any = await created.json();
  const got = await waitFor(() => receiver.received.find((r) => r.body.type === 'requirement.created' && r.body.data.id === requirement.id));
  expect(got.headers['content-type']).toBe('application/json');
  const t = verifySignature(hook.secret, String(got.headers['x-service-signature']), got.raw);
  expect(got.headers['webhook-timestamp']).toBe(String(t));
  expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(60);
  expect(got.headers['webhook-id']).toBe(got.body.id);
  expect(got.body).toEqual({
    id: expect.stringMatching(/^evt_/),
    type: 'requirement.created',
    data: expect.objectContaining({ id: requirement.id, title: 'Encrypt personal data at rest' }),
    createdAt: expect.any(String),
  });
  // A wrong secret would not verify.
  expect(signedAt('wrong', String(got.headers['x-service-signature']), got.raw)).toBeNull();

  // An update is delivered too; an event type not subscribed (validation.completed) is not.
  const before = receiver.received.length;
  expect((await gw.request(`/v1/requirements/${requirement.id}/validate`, { method: 'POST' })).status).toBe(200);
  expect((await gw.request(`/v1/requirements/${requirement.id}`, { method: 'PUT', json: { status: 'in-progress' } })).status).toBe(200);
  const updated = await waitFor(() => receiver.received.find((r) => r.body.type === 'requirement.updated' && r.body.data.id === requirement.id));
  expect(updated.body.data.status).toBe('in-progress');
  await new Promise((r) => setTimeout(r, 500));
  const since = receiver.received.slice(before).map((r) => r.body.type);
  expect(since).not.toContain('validation.completed');

  const deliveries: any = await (await gw.request(`/v1/webhooks/${hook.id}/deliveries`)).json();
  expect(deliveries.data.length).toBeGreaterThanOrEqual(2);
  expect(deliveries.data.every((d: any) => d.status === 'delivered' && d.attempts === 1 && d.lastStatusCode === 200)).toBe(true);

  expect((await gw.request(`/v1/webhooks/${hook.id}`, { method: 'DELETE' })).status).toBe(204);
  expect((await gw.request(`/v1/webhooks/${hook.id}`, { method: 'DELETE' })).status).toBe(404);
  expect((await gw.request(`/v1/webhooks/${hook.id}/deliveries`)).status).toBe(404);
});

test('a receiver that answers 500 twice then 200 gets the event delivered once, after retries with backoff', async () => {
  const secret = 'a-caller-chosen-secret-0123456789';
  const hook: any = await (
    await gw.request('/v1/webhooks', { method: 'POST', json: { url: `${receiver.url}/hooks/flaky`, events: ['requirement.created'], secret } })
  ).json();
  expect(hook.secret).toBe(secret);
  receiver.answer([500, 500]);
  try {
    const start = receiver.received.length;
    const res = await gw.request('/v1/requirements', { method: 'POST', json: { title: 'Retention schedule', framework: 'gdpr' } });
    const requirement: any = await res.json();
    const isOurs = (r: ReceivedDelivery) => r.headers['x-service-signature'] && r.body.type === 'requirement.created' && r.body.data.id === requirement.id;
    await waitFor(() => receiver.received.slice(start).filter(isOurs).length >= 3 || undefined);
    await new Promise((r) => setTimeout(r, 800));
    const attempts = receiver.received.slice(start).filter(isOurs);
    expect(attempts).toHaveLength(3);
    // Same event each time (receivers de-duplicate on webhook-id), signed afresh.
    expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
    for (const a of attempts) verifySignature(secret, String(a.headers['x-service-signature']), a.raw);
    // Exponential backoff: the second wait is longer than the first (100 ms base ± jitter, then 200 ms).
    expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(70);
    expect(attempts[2].at - attempts[1].at).toBeGreaterThanOrEqual(140);

    const deliveries: any = await (await gw.request(`/v1/webhooks/${hook.id}/deliveries`)).json();
    const ours = deliveries.data.find((d: any) => d.eventId === attempts[0].headers['webhook-id']);
    expect(ours).toEqual(expect.objectContaining({ status: 'delivered', attempts: 3, lastStatusCode: 200, deliveredAt: expect.any(String) }));
  } finally {
    await gw.request(`/v1/webhooks/${hook.id}`, { method: 'DELETE' });
  }
});

test('a delivery that never succeeds ends failed after the last attempt', async () => {
  const settings = (gw.services as any).webhookDelivery.settings;
  const maxBefore = settings.maxAttempts;
  settings.maxAttempts = 2;
  const hook: any = await (
    await gw.request('/v1/webhooks', { method: 'POST', json: { url: `${receiver.url}/hooks/down`, events: ['requirement.created'] } })
  ).json();
  try {
    receiver.answer([503, 503, 503, 503, 503]);
    await gw.request('/v1/requirements', { method: 'POST', json: { title: 'Breach notification', framework: 'gdpr' } });
    const failed = await waitFor(async () => {
      const list: any = await (await gw.request(`/v1/webhooks/${hook.id}/deliveries?status=failed`)).json();
      return list.data[0];
    });
    expect(failed).toEqual(expect.objectContaining({ status: 'failed', attempts: 2, lastStatusCode: 503, nextAttemptAt: null }));
  } finally {
    await gw.request(`/v1/webhooks/${hook.id}`, { method: 'DELETE' });
    settings.maxAttempts = maxBefore;
    receiver.answer([]);
  }
});

test('registration validation: scheme, event names, secret length', async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ url: 'ftp://example.com/x', events: ['*'] }, 'url'],
    [{ url: 'not a url', events: ['*'] }, 'url'],
    [{ url: `${receiver.url}/x`, events: ['requirement_updated'] }, 'events.0'],
    [{ url: `${receiver.url}/x`, events: [] }, 'events'],
    [{ url: `${receiver.url}/x`, events: ['*'], secret: 'short' }, 'secret'],
  ];
  for (const [json, field] of cases) {
    const res = await gw.request('/v1/webhooks', { method: 'POST', json });
    expect(res.status).toBe(400);
    const body: any = await res.json();
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.details.map((d: any) => d.field)).toContain(field);
  }
});

test('permissions: manage:webhooks on every path; keys see only their own webhooks', async () => {
  const manager = await issueKey(gw, ['manage:webhooks']);
  const other = await issueKey(gw, ['manage:webhooks']);
  const reader = await issueKey(gw, ['read:requirements', 'read:dashboard']);
  const json = { url: `${receiver.url}/hooks/perm`, events: ['finding.created'] };
  expect((await gw.request('/v1/webhooks', { method: 'POST', json, auth: null })).status).toBe(401);
  expect((await gw.request('/v1/webhooks', { method: 'POST', json, auth: reader })).status).toBe(403);
  const created = await gw.request('/v1/webhooks', { method: 'POST', json, auth: manager });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as any;
  for (const [path, method] of [
    ['/v1/webhooks', 'GET'],
    [`/v1/webhooks/${id}/deliveries`, 'GET'],
    [`/v1/webhooks/${id}`, 'DELETE'],
  ] as const) {
    expect((await gw.request(path, { method, auth: null })).status).toBe(401);
    expect((await gw.request(path, { method, auth: reader })).status).toBe(403);
  }
  const mine: any = await (await gw.request('/v1/webhooks', { auth: manager })).json();
  expect(mine.data.map((w: any) => w.id)).toEqual([id]);
  const theirs: any = await (await gw.request('/v1/webhooks', { auth: other })).json();
  expect(theirs.data).toEqual([]);
  expect((await gw.request(`/v1/webhooks/${id}/deliveries`, { auth: other })).status).toBe(404);
  expect((await gw.request(`/v1/webhooks/${id}`, { method: 'DELETE', auth: other })).status).toBe(404);
  const all: any = await (await gw.request('/v1/webhooks')).json(); // admin sees every webhook
  expect(all.data.map((w: any) => w.id)).toContain(id);
  expect((await gw.request(`/v1/webhooks/${id}/deliveries`, { auth: manager })).status).toBe(200);
  expect((await gw.request(`/v1/webhooks/${id}`, { method: 'DELETE', auth: manager })).status).toBe(204);
});

describe('SSRF guard (gateway without WEBHOOK_ALLOW_PRIVATE_NETWORKS)', () => {
  let strict: TestGateway;
  beforeAll(async () => {
    strict = await startGateway();
  });
  afterAll(async () => {
    await strict?.close();
  });

  test.each([
    'http://127.0.0.1/hooks',
    'http://10.0.0.1/',
    'http://localhost:8080/x',
    'http://[::1]/x',
    'http://169.254.169.254/latest/meta-data',
    'http://192.168.1.10/',
  ])('%s is refused with 400 naming the rule', async (url) => {
    const res = await strict.request('/v1/webhooks', { method: 'POST', json: { url, events: ['*'] } });
    expect(res.status).toBe(400);
    const body: any = await res.json();
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.message).toMatch(/loopback|private|link-local/);
    expect(body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'url' })]));
  });
});
