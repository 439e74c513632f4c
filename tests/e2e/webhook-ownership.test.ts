import { graphqlEnumName } from '../../schema/enums';
import { clock, clockStartingAt } from '../../domain/clock';
import { ADMIN_KEY, startGateway, type TestGateway } from '../helpers/gateway';
import { startWebhookReceiver } from '../helpers/webhook-receiver';
import { waitFor } from '../helpers/wait';

/**
 * Issue 11: a webhook belongs to the key that registered it and delivers only what that key may
 * read, for as long as the key is valid. Each attack is made over REST, GraphQL and tRPC against a
 * real receiver that checks every signature.
 */
let gw: TestGateway;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  gw = await startGateway({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  receiver = await startWebhookReceiver();
  (gw.services as any).webhookDelivery.settings.pollIntervalMs = 50;
}, 180_000);
afterAll(async () => {
  await gw?.close();
  await receiver?.close();
});

async function mint(name: string, permissions: string[], extra: Record<string, unknown> = {}) {
  const res = await gw.request('/v1/auth/api-keys', { method: 'POST', json: { name, permissions, ...extra } });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; key: string; expiresAt: string | null };
}

type Transport = 'rest' | 'graphql' | 'trpc';
async function register(via: Transport, auth: string, path: string, events: string[]): Promise<{ id: string; secret: string }> {
  const url = `${receiver.url}${path}`;
  if (via === 'rest') {
    const res = await gw.request('/v1/webhooks', { method: 'POST', auth, json: { url, events } });
    expect(res.status).toBe(201);
    return (await res.json()) as any;
  }
  if (via === 'graphql') {
    const res = await gw.request('/graphql', {
      method: 'POST',
      auth,
      json: {
        query: 'mutation($i: CreateWebhookInput!) { createWebhook(input: $i) { id secret } }',
        variables: { i: { url, events: events.map(graphqlEnumName) } },
      },
    });
    const body: any = await res.json();
    expect(body.errors).toBeUndefined();
    return body.data.createWebhook;
  }
  const res = await gw.request('/trpc/live.createWebhook', { method: 'POST', auth, json: { url, events } });
  expect(res.status).toBe(200);
  return ((await res.json()) as any).result.data;
}

async function deliveries(id: string, auth?: string): Promise<any[]> {
  const res = await gw.request(`/v1/webhooks/${id}/deliveries?limit=200`, { auth });
  expect(res.status).toBe(200);
  return ((await res.json()) as any).data;
}

/** Requirement, validation, finding with evidence, update: one event of most types, made by the admin. */
async function activity(tag: string) {
  const req: any = await (
    await gw.request('/v1/requirements', { method: 'POST', json: { title: `Requirement ${tag}`, framework: 'gdpr', description: `secret body ${tag}` } })
  ).json();
  await gw.request(`/v1/requirements/${req.id}/validate`, { method: 'POST' });
  const finding: any = await (
    await gw.request('/v1/audits/findings', {
      method: 'POST',
      json: { title: `Finding ${tag}`, framework: 'gdpr', severity: 'high', requirementId: req.id, evidence: [`evidence ${tag}`] },
    })
  ).json();
  await gw.request(`/v1/audits/findings/${finding.id}`, { method: 'PATCH', json: { status: 'in-progress' } });
  return { requirementId: req.id as string, findingId: finding.id as string };
}

describe('a key with only manage:webhooks registering * gets nothing it cannot read over REST', () => {
  test.each(['rest', 'graphql', 'trpc'] as const)('registered over %s', async (via) => {
    const bare = await mint(`bare ${via}`, ['manage:webhooks']);
    const reader = await mint(`requirements reader ${via}`, ['manage:webhooks', 'read:requirements']);
    // What REST refuses these keys:
    expect((await gw.request('/v1/audits/findings', { auth: bare.key })).status).toBe(403);
    expect((await gw.request('/v1/requirements', { auth: bare.key })).status).toBe(403);
    expect((await gw.request('/v1/audits/findings', { auth: reader.key })).status).toBe(403);

    const bareHook = await register(via, bare.key, `/bare-${via}`, ['*']);
    const readerHook = await register(via, reader.key, `/reader-${via}`, ['*']);
    const adminHook = await register(via, ADMIN_KEY, `/admin-${via}`, ['*']);
    const { requirementId, findingId } = await activity(via);

    // The admin's webhook is the control: it gets every event, findings and evidence included.
    const adminGot = await waitFor(() => {
      const got = receiver.verified(`/admin-${via}`, adminHook.secret);
      return got.some((e) => e.type === 'finding.updated') && got;
    });
    expect(adminGot.find((e: any) => e.type === 'finding.created').data.evidence).toEqual([`evidence ${via}`]);
    const readerGot = await waitFor(() => {
      const got = receiver.verified(`/reader-${via}`, readerHook.secret);
      return got.some((e) => e.type === 'validation.completed') && got.some((e) => e.type === 'requirement.created') && got;
    });
    expect(readerGot.find((e: any) => e.type === 'requirement.created').data).toMatchObject({ id: requirementId, description: `secret body ${via}` });

    // Outbox rows are written with the change: what was never queued can never arrive.
    const bareDeliveries = await deliveries(bareHook.id, bare.key);
    expect(bareDeliveries).toEqual([]);
    const readerTypes = new Set((await deliveries(readerHook.id, reader.key)).map((d) => d.type));
    expect([...readerTypes].sort()).toEqual(['requirement.created', 'validation.completed']);
    expect(receiver.verified(`/bare-${via}`, bareHook.secret)).toEqual([]);
    const readerRaw = receiver.received
      .filter((r) => r.path === `/reader-${via}`)
      .map((r) => r.raw)
      .join('\n');
    expect(readerRaw).not.toContain(findingId);
    expect(readerRaw).not.toContain(`evidence ${via}`);
    expect(readerRaw).not.toContain(`Finding ${via}`);
  });
});

test('a key with read:dashboard but not read:audits gets activity events without finding titles', async () => {
  const dash = await mint('dashboard only', ['manage:webhooks', 'read:dashboard']);
  const hook = await register('rest', dash.key, '/dashboard-only', ['user.activity']);
  const { findingId } = await activity('activity');
  const got = await waitFor(() => {
    const events = receiver.verified('/dashboard-only', hook.secret);
    return events.some((e) => e.data.type === 'finding.updated') && events;
  });
  const findingActivity = got.filter((e: any) => e.data.type.startsWith('finding.'));
  expect(findingActivity.length).toBe(2);
  for (const e of findingActivity) {
    expect(e.data.description).not.toContain('Finding activity');
    expect(e.data.description).toContain(findingId);
    expect(e.data.description).toContain('read:audits');
  }
  // The same key reading the feed over REST sees the same redacted text.
  const status: any = await (await gw.request('/v1/dashboard/status', { auth: dash.key })).json();
  expect(JSON.stringify(status.recentActivity)).not.toContain('Finding activity');
});

describe("deliveries stop with the owner's key, recorded as skipped with the reason", () => {
  test('revoked owner (and a revoked issuer above it)', async () => {
    const issuer = await mint('issuer', ['manage:api-keys', 'manage:webhooks', 'read:requirements']);
    const childRes = await gw.request('/v1/auth/api-keys', {
      method: 'POST',
      auth: issuer.key,
      json: { name: 'child', permissions: ['manage:webhooks', 'read:requirements'] },
    });
    const child = (await childRes.json()) as { id: string; key: string };
    const own = await register('rest', issuer.key, '/revoked-owner', ['requirement.created']);
    const childs = await register('graphql', child.key, '/revoked-child', ['requirement.created']);
    await gw.request('/v1/requirements', { method: 'POST', json: { title: 'Before revocation', framework: 'gdpr' } });
    await waitFor(() => receiver.verified('/revoked-owner', own.secret).length === 1 && receiver.verified('/revoked-child', childs.secret).length === 1);

    expect((await gw.request(`/v1/auth/api-keys/${issuer.id}`, { method: 'DELETE' })).status).toBe(200);
    const after: any = await (await gw.request('/v1/requirements', { method: 'POST', json: { title: 'After revocation', framework: 'gdpr' } })).json();
    for (const [hook, path] of [
      [own, '/revoked-owner'],
      [childs, '/revoked-child'],
    ] as const) {
      const skipped = await waitFor(async () => (await deliveries(hook.id)).find((d) => d.status === 'skipped'));
      expect(skipped).toMatchObject({
        type: 'requirement.created',
        status: 'skipped',
        attempts: 0,
        lastError: 'owner key revoked',
        deliveredAt: null,
        nextAttemptAt: null,
      });
      expect(receiver.verified(path, hook.secret).map((e) => e.data.id)).not.toContain(after.id);
    }
    // Filtered listing by the new status, on REST and tRPC.
    const onlySkipped: any = await (await gw.request(`/v1/webhooks/${own.id}/deliveries?status=skipped`)).json();
    expect(onlySkipped.data.map((d: any) => d.status)).toEqual(['skipped']);
    const viaTrpc: any = await (
      await gw.request(`/trpc/live.webhookDeliveries?input=${encodeURIComponent(JSON.stringify({ id: childs.id, status: 'skipped' }))}`)
    ).json();
    expect(viaTrpc.result.data.data).toEqual([expect.objectContaining({ status: 'skipped', lastError: 'owner key revoked' })]);
    const viaGql: any = await (
      await gw.request('/graphql', { method: 'POST', json: { query: `{ webhookDeliveries(id: "${childs.id}") { status lastError } }` } })
    ).json();
    expect(viaGql.data.webhookDeliveries).toContainEqual({ status: 'SKIPPED', lastError: 'owner key revoked' });
  });

  test('expired owner', async () => {
    const shortLived = await mint('short lived', ['manage:webhooks', 'read:requirements'], { expiresIn: '1h' });
    const hook = await register('trpc', shortLived.key, '/expired-owner', ['requirement.created']);
    const restore = clock.use(clockStartingAt(Date.parse(shortLived.expiresAt!) + 1_000));
    try {
      await gw.request('/v1/requirements', { method: 'POST', json: { title: 'After expiry', framework: 'gdpr' } });
      const skipped = await waitFor(async () => (await deliveries(hook.id)).find((d) => d.status === 'skipped'));
      expect(skipped.lastError).toBe('owner key expired');
    } finally {
      restore();
    }
    expect(receiver.verified('/expired-owner', hook.secret)).toEqual([]);
  });
});

test('listing: an owner sees its own webhooks, the admin all', async () => {
  const a = await mint('lister a', ['manage:webhooks']);
  const b = await mint('lister b', ['manage:webhooks']);
  const hookA = await register('rest', a.key, '/list-a', ['*']);
  const hookB = await register('graphql', b.key, '/list-b', ['*']);
  const ids = async (auth?: string) => (((await (await gw.request('/v1/webhooks', { auth })).json()) as any).data as any[]).map((w) => w.id);
  expect(await ids(a.key)).toEqual([hookA.id]);
  expect(await ids(b.key)).toEqual([hookB.id]);
  expect(await ids()).toEqual(expect.arrayContaining([hookA.id, hookB.id]));
  const gqlList: any = await (await gw.request('/graphql', { method: 'POST', auth: a.key, json: { query: '{ webhooks { id } }' } })).json();
  expect(gqlList.data.webhooks).toEqual([{ id: hookA.id }]);
  const trpcList: any = await (await gw.request('/trpc/live.webhooks', { auth: b.key })).json();
  expect(trpcList.result.data.data.map((w: any) => w.id)).toEqual([hookB.id]);
  expect((await gw.request(`/v1/webhooks/${hookA.id}/deliveries`, { auth: b.key })).status).toBe(404);
});
