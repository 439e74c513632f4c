import { graphqlEnumName } from '../../schema/enums';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { upgradeStatus } from '../helpers/ws';
import { COMPLIANCE_EVENT_TYPES } from '../../domain/compliance/events';
import { makeEvent } from '../../domain/events/bus';
import { ADMIN_KEY, startGateway, type TestGateway } from '../helpers/gateway';
import { startWebhookReceiver } from '../helpers/webhook-receiver';
import { waitFor } from '../helpers/wait';

/**
 * The permission matrix, extended to channels (issue 11): for every event type and every report
 * type, a key without the permission that reads it over REST receives nothing of it through
 * webhooks (a real receiver checking signatures), the dashboard WebSocket, a graphql-ws
 * subscription, a tRPC subscription (SSE) or a report download. A key holding every permission
 * (not the admin) is the control: it receives every event type, so the absences mean something.
 */

/** What reads each event's data over REST (docs/permissions.md); written out here, not imported. */
const NEEDS: Record<string, string[]> = {
  'requirement.created': ['read:requirements'],
  'requirement.updated': ['read:requirements'],
  'requirement.deleted': ['read:requirements'],
  'validation.completed': ['read:requirements'],
  'finding.created': ['read:audits'],
  'finding.updated': ['read:audits'],
  'compliance.score_changed': ['read:compliance', 'read:dashboard'],
  'report.completed': ['read:compliance'], // and being the requester: see `other`
  'user.activity': ['read:dashboard'],
  'system.alert': ['read:dashboard'],
};

const ALL = [
  'read:requirements',
  'write:requirements',
  'read:compliance',
  'write:compliance',
  'read:audits',
  'write:audits',
  'read:dashboard',
  'write:dashboard',
  'manage:webhooks',
  'read:audit-trail',
  'sign:reports',
];
const without = (...ps: string[]) => ALL.filter((p) => !ps.includes(p));

/**
 * The keys: what each lacks, and so which event types (and which secret text) must never reach it.
 * Only the control key requested the report, so `report.completed` reaches no other key.
 */
const KEYS = {
  control: { permissions: ALL, forbidden: [] as string[], secrets: [] as string[] },
  noRequirements: {
    permissions: without('read:requirements'),
    forbidden: notRequester(typesNeeding('read:requirements')),
    secrets: ['SECRET-REQ', 'REPORT-ID'],
  },
  noAudits: { permissions: without('read:audits'), forbidden: notRequester(typesNeeding('read:audits')), secrets: ['SECRET-FINDING', 'REPORT-ID'] },
  noScores: {
    permissions: without('read:compliance', 'read:dashboard'),
    forbidden: notRequester(typesNeeding('read:compliance', 'read:dashboard')),
    secrets: ['REPORT-ID'],
  },
  noDashboard: { permissions: without('read:dashboard'), forbidden: notRequester(typesNeeding('read:dashboard')), secrets: ['REPORT-ID'] },
  // Every permission, but not the report's requester.
  other: { permissions: ALL, forbidden: notRequester([]), secrets: ['REPORT-ID'] },
};
type KeyName = keyof typeof KEYS;
/** Keys that may connect to the live channels (they need read:dashboard); the others are refused there. */
const LIVE: KeyName[] = ['control', 'noRequirements', 'noAudits', 'other'];

function notRequester(types: string[]): string[] {
  return [...new Set([...types, 'report.completed'])];
}

/** Event types a key lacking all of `missing` may not receive (it holds none of their permissions). */
function typesNeeding(...missing: string[]): string[] {
  return Object.entries(NEEDS)
    .filter(([, needs]) => needs.every((p) => missing.includes(p)))
    .map(([t]) => t);
}

interface Seen {
  type: string;
  data: any;
  raw: string;
}

let gw: TestGateway;
let wsUrl: string;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
const keys = {} as Record<KeyName, { id: string; key: string }>;
const hooks = {} as Record<KeyName, { id: string; secret: string }>;
const seen: Record<string, Seen[]> = {};
const closers: (() => Promise<void> | void)[] = [];
const ids: Record<string, string> = {};

beforeAll(async () => {
  gw = await startGateway({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  wsUrl = gw.url.replace(/^http/, 'ws');
  receiver = await startWebhookReceiver();
  (gw.services as any).webhookDelivery.settings.pollIntervalMs = 50;
  for (const [name, k] of Object.entries(KEYS) as [KeyName, (typeof KEYS)[KeyName]][]) {
    const res = await gw.request('/v1/auth/api-keys', { method: 'POST', json: { name, permissions: k.permissions } });
    expect(res.status).toBe(201);
    keys[name] = (await res.json()) as any;
    const hook = await gw.request('/v1/webhooks', { method: 'POST', auth: keys[name].key, json: { url: `${receiver.url}/${name}`, events: ['*'] } });
    expect(hook.status).toBe(201);
    hooks[name] = (await hook.json()) as any;
  }
  for (const name of LIVE) {
    await openDashboardSocket(name);
    openGraphqlWs(name);
    await openTrpcSse(name);
  }
  await warmUp();
  await scenario();
}, 180_000);

afterAll(async () => {
  for (const close of closers) await close();
  await gw?.close();
  await receiver?.close();
});

const record = (channel: string, e: { type: string; data: any }, raw: string) => (seen[channel] ??= []).push({ type: e.type, data: e.data, raw });

async function openDashboardSocket(name: KeyName) {
  const socket = new WebSocket(`${wsUrl}/v1/dashboard/ws?access_token=${keys[name].key}`);
  let subscribed!: () => void;
  const ready = new Promise<void>((r) => (subscribed = r));
  socket.on('message', (buf) => {
    const raw = buf.toString();
    const m = JSON.parse(raw);
    if (m.type === 'subscribed') subscribed();
    if (m.event) record(`ws:${name}`, { type: m.event, data: m.data }, raw);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  socket.send(
    JSON.stringify({ type: 'subscribe', events: ['requirement_updated', 'compliance_changed', 'validation_completed', 'user_activity', 'system_alert'] }),
  );
  await ready;
  closers.push(() => socket.close());
}

const DOTTED_OF: Record<string, string> = Object.fromEntries(COMPLIANCE_EVENT_TYPES.map((t) => [graphqlEnumName(t), t]));

function openGraphqlWs(name: KeyName) {
  const client: Client = createClient({
    url: `${wsUrl}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${keys[name].key}` },
    retryAttempts: 0,
  });
  const dispose = client.subscribe(
    { query: 'subscription { complianceEvents { id type data } }' },
    {
      next: (v: any) => {
        const e = v.data?.complianceEvents;
        // GraphQL names the type by its enum member (REQUIREMENT_CREATED); compared here as REST writes it.
        if (e) record(`graphql-ws:${name}`, { ...e, type: DOTTED_OF[e.type] ?? e.type }, JSON.stringify(v));
        else record(`graphql-ws:${name}`, { type: 'error', data: v }, JSON.stringify(v));
      },
      error: (err) => record(`graphql-ws:${name}`, { type: 'error', data: String(err) }, String(err)),
      complete: () => undefined,
    },
  );
  closers.push(async () => {
    dispose();
    await client.dispose();
  });
}

async function openTrpcSse(name: KeyName) {
  const controller = new AbortController();
  const res = await gw.request('/trpc/live.complianceEvents', { auth: keys[name].key, signal: controller.signal, headers: { accept: 'text/event-stream' } });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const data = buffer
            .slice(0, at)
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trimStart())
            .join('\n');
          buffer = buffer.slice(at + 2);
          if (!data) continue;
          const e = JSON.parse(data);
          if (e && typeof e.type === 'string' && 'data' in e) record(`trpc:${name}`, e, data);
        }
      }
    } catch {
      /* aborted at the end */
    }
  })();
  closers.push(() => controller.abort());
}

const liveChannels = (name: KeyName) => [`ws:${name}`, `graphql-ws:${name}`, `trpc:${name}`];

/** Subscriptions start asynchronously: write until every live channel has seen an event, then forget them. */
async function warmUp() {
  const until = Date.now() + 20_000;
  let n = 0;
  while (!LIVE.every((k) => liveChannels(k).every((c) => seen[c]?.length))) {
    if (Date.now() > until)
      throw new Error(`live channels did not start: ${JSON.stringify(Object.fromEntries(Object.entries(seen).map(([c, s]) => [c, s.length])))}`);
    await gw.request('/v1/requirements', { method: 'POST', json: { title: `warm-up ${n++}`, framework: 'iso13485' } });
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const c of Object.keys(seen)) seen[c] = [];
  await waitFor(async () => {
    for (const name of Object.keys(KEYS) as KeyName[]) {
      const pending = ((await (await gw.request(`/v1/webhooks/${hooks[name].id}/deliveries?status=pending`)).json()) as any).data;
      if (pending.length) return false;
    }
    return true;
  });
  receiver.received.length = 0;
  for (const name of Object.keys(KEYS) as KeyName[]) {
    const list = ((await (await gw.request(`/v1/webhooks/${hooks[name].id}/deliveries?limit=200`)).json()) as any).data as any[];
    for (const d of list) warmUpDeliveries.add(d.id);
  }
}
const warmUpDeliveries = new Set<string>();

/** One event of every type, made by the admin (the report by the control key), then a marker. */
async function scenario() {
  const req: any = await (
    await gw.request('/v1/requirements', {
      method: 'POST',
      json: { title: 'Title SECRET-REQ', description: 'Body SECRET-REQ', framework: 'gdpr', priority: 'critical' },
    })
  ).json();
  ids.requirement = req.id;
  await gw.request(`/v1/requirements/${req.id}`, { method: 'PUT', json: { status: 'completed' } });
  await gw.request(`/v1/requirements/${req.id}/validate`, { method: 'POST' });
  const finding: any = await (
    await gw.request('/v1/audits/findings', {
      method: 'POST',
      json: { title: 'Title SECRET-FINDING', framework: 'gdpr', severity: 'critical', evidence: ['Evidence SECRET-FINDING'] },
    })
  ).json();
  ids.finding = finding.id;
  await gw.request(`/v1/audits/findings/${finding.id}`, { method: 'PATCH', json: { status: 'resolved', resolution: 'Fixed SECRET-FINDING' } });
  const report: any = await (
    await gw.request('/v1/compliance/reports', { method: 'POST', auth: keys.control.key, json: { framework: 'gdpr', format: 'json' } })
  ).json();
  ids.report = report.reportId;
  await waitFor(() => seen[`ws:control`]?.some((e) => e.type === 'report.completed'));
  expect((await gw.request(`/api/requirements/${req.id}`, { method: 'DELETE' })).status).toBe(200);
  // A system alert is raised by the gateway itself when the database goes away; published as it does.
  await gw.services.events.publish([makeEvent('system.alert', { severity: 'info', component: 'matrix', status: 'test', message: 'matrix alert' })]);
  const marker: any = await (await gw.request('/v1/requirements', { method: 'POST', json: { title: 'marker', framework: 'soc2' } })).json();
  ids.marker = marker.id;
  // Each channel delivers in order: once a channel has the marker's activity, it has everything before it.
  await waitFor(() => LIVE.every((k) => liveChannels(k).every((c) => seen[c]?.some((e) => e.type === 'user.activity' && e.data.subjectId === marker.id))));
  // Webhooks: wait until nothing is pending; what was never queued can never be sent.
  await waitFor(async () => {
    for (const name of Object.keys(KEYS) as KeyName[]) {
      const list = ((await (await gw.request(`/v1/webhooks/${hooks[name].id}/deliveries?limit=200`)).json()) as any).data;
      if (list.some((d: any) => d.status === 'pending')) return false;
    }
    return true;
  });
}

const secretsOf = (name: KeyName) => KEYS[name].secrets.map((s) => (s === 'REPORT-ID' ? ids.report : s));

test('the matrix covers every event type', () => {
  expect(Object.keys(NEEDS).sort()).toEqual([...COMPLIANCE_EVENT_TYPES].sort());
});

test('the control key (every permission, the requester) receives every event type on every channel', () => {
  for (const c of liveChannels('control')) {
    expect({ c, types: [...new Set(seen[c].map((e) => e.type))].sort() }).toEqual({ c, types: [...COMPLIANCE_EVENT_TYPES].sort() });
  }
  const hooked = new Set(receiver.verified('/control', hooks.control.secret).map((e) => e.type));
  // system.alert is a live-only event (webhooks are for recorded changes).
  expect([...hooked].sort()).toEqual(COMPLIANCE_EVENT_TYPES.filter((t) => t !== 'system.alert').sort());
  const found = receiver.verified('/control', hooks.control.secret).find((e) => e.type === 'finding.created');
  expect(found.data.evidence).toEqual(['Evidence SECRET-FINDING']);
});

describe.each(LIVE.filter((k) => k !== 'control'))('key %s on the live channels', (name) => {
  test.each(['ws', 'graphql-ws', 'trpc'])('%s: nothing of the event types it may not read, and none of their text', (channel) => {
    const events = seen[`${channel}:${name}`];
    expect(events.some((e) => e.data?.subjectId === ids.marker)).toBe(true);
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    const leaked = events.filter((e) => KEYS[name].forbidden.includes(e.type)).map((e) => e.type);
    expect(leaked).toEqual([]);
    for (const secret of secretsOf(name)) expect(events.filter((e) => e.raw.includes(secret)).map((e) => e.raw)).toEqual([]);
    // What it may read still arrives (the filter is not a blanket one).
    const allowed = COMPLIANCE_EVENT_TYPES.filter((t) => !KEYS[name].forbidden.includes(t));
    expect([...new Set(events.map((e) => e.type))].sort()).toEqual([...allowed].sort());
  });
});

test.each(['noScores', 'noDashboard'] as const)('key %s is refused by every live channel (they need read:dashboard)', async (name) => {
  const status = await upgradeStatus(`${wsUrl}/v1/dashboard/ws?access_token=${keys[name].key}`);
  expect(status).toBe(403);
  const sse = await gw.request('/trpc/live.complianceEvents', { auth: keys[name].key, headers: { accept: 'text/event-stream' } });
  expect(await sse.text()).toMatch(/FORBIDDEN|AUTHORIZATION_ERROR/);
  const client = createClient({
    url: `${wsUrl}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${keys[name].key}` },
    retryAttempts: 0,
  });
  const result = await new Promise<any>((resolve) => {
    client.subscribe(
      { query: 'subscription { complianceEvents { id } }' },
      { next: (v) => resolve(v), error: (e) => resolve({ error: e }), complete: () => resolve(null) },
    );
  });
  await client.dispose();
  expect(JSON.stringify(result)).toMatch(/AUTHORIZATION_ERROR/);
});

test.each(Object.keys(KEYS).filter((k) => k !== 'control') as KeyName[])(
  'webhook of key %s: nothing it may not read is queued or received, every delivery signed',
  async (name) => {
    const deliveries = (((await (await gw.request(`/v1/webhooks/${hooks[name].id}/deliveries?limit=200`)).json()) as any).data as any[]).filter(
      (d) => !warmUpDeliveries.has(d.id),
    );
    expect(deliveries.filter((d) => KEYS[name].forbidden.includes(d.type)).map((d) => d.type)).toEqual([]);
    expect(deliveries.every((d) => d.status === 'delivered')).toBe(true);
    const received = receiver.verified(`/${name}`, hooks[name].secret);
    expect(received.length).toBe(deliveries.length);
    expect(received.filter((e) => KEYS[name].forbidden.includes(e.type)).map((e) => e.type)).toEqual([]);
    const raw = receiver.received.filter((r) => r.path === `/${name}`).map((r) => r.raw);
    for (const secret of secretsOf(name)) expect(raw.filter((r) => r.includes(secret))).toEqual([]);
    const allowed = COMPLIANCE_EVENT_TYPES.filter((t) => t !== 'system.alert' && !KEYS[name].forbidden.includes(t));
    expect([...new Set(received.map((e) => e.type))].sort()).toEqual([...allowed].sort());
  },
);

describe('report downloads, for every report type', () => {
  const TYPES = [
    { origin: 'compliance', body: { framework: 'gdpr', format: 'csv' }, read: 'read:compliance' },
    { origin: 'dashboard', body: { type: 'compliance', format: 'csv' }, read: 'read:dashboard' },
    { origin: 'dashboard', body: { type: 'requirements', format: 'csv' }, read: 'read:dashboard' },
    { origin: 'dashboard', body: { type: 'audit', format: 'csv' }, read: 'read:dashboard' },
    { origin: 'dashboard', body: { type: 'summary', format: 'csv' }, read: 'read:dashboard' },
  ] as const;

  async function completed(path: string, auth: string) {
    return waitFor(async () => {
      const body: any = await (await gw.request(path, { auth })).json();
      return body.status === 'completed' && body;
    });
  }
  async function request(origin: string, body: object, auth: string) {
    return gw.request(`/v1/${origin}/reports`, { method: 'POST', auth, json: body });
  }

  test.each(TYPES.map((t) => [`${t.origin} ${'type' in t.body ? t.body.type : 'report'}`, t] as const))('%s', async (_label, t) => {
    const res = await request(t.origin, t.body, keys.control.key);
    expect(res.status).toBe(202);
    const mine: any = await res.json();
    const done = await completed(`/v1/${t.origin}/reports/${mine.reportId}`, keys.control.key);
    const full = await (await gw.request(done.downloadUrl, { auth: keys.control.key })).text();
    if (t.origin === 'compliance' || ('type' in t.body && (t.body.type === 'audit' || t.body.type === 'compliance'))) expect(full).toContain(ids.finding);

    // Another key with every permission: not its report.
    expect((await gw.request(`/v1/${t.origin}/reports/${mine.reportId}`, { auth: keys.other.key })).status).toBe(404);
    expect((await gw.request(done.downloadUrl, { auth: keys.other.key })).status).toBe(404);
    // A key without the read permission of this report kind.
    const lacking = t.read === 'read:compliance' ? await issue(without('read:compliance')) : keys.noDashboard.key;
    expect((await gw.request(done.downloadUrl, { auth: lacking })).status).toBe(403);

    // A key without read:audits: an audit report is refused, any other holds no findings.
    const own = await request(t.origin, t.body, keys.noAudits.key);
    if ('type' in t.body && t.body.type === 'audit') {
      expect(own.status).toBe(403);
      return;
    }
    expect(own.status).toBe(202);
    const ownDone = await completed(`/v1/${t.origin}/reports/${((await own.json()) as any).reportId}`, keys.noAudits.key);
    const file = await (await gw.request(ownDone.downloadUrl, { auth: keys.noAudits.key })).text();
    expect(file).not.toContain(ids.finding);
    expect(file).not.toContain('SECRET-FINDING');
  });

  async function issue(permissions: string[]) {
    const res = await gw.request('/v1/auth/api-keys', { method: 'POST', json: { name: 'lacking', permissions } });
    return ((await res.json()) as any).key as string;
  }
});

test('the admin is not a key of the matrix', () => {
  expect(Object.values(keys).map((k) => k.key)).not.toContain(ADMIN_KEY);
});
