import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { upgradeStatus as upgradeStatusOf } from '../helpers/ws';
import { clock, clockStartingAt } from '../../domain/clock';
import { MetricSnapshot } from '../../domain/compliance/dashboard/snapshot.entity';
import { ADMIN_KEY, issueKey, startGateway, type TestGateway } from '../helpers/gateway';
import { readSse } from '../helpers/sse';

let gw: TestGateway;
let wsUrl: string;

beforeAll(async () => {
  gw = await startGateway();
  wsUrl = gw.url.replace(/^http/, 'ws');
});

afterAll(async () => {
  await gw?.close();
});

const DAY = 86_400_000;

async function createRequirement(body: Record<string, unknown>) {
  const res = await gw.request('/v1/requirements', { method: 'POST', json: body });
  expect(res.status).toBe(201);
  return (await res.json()) as any;
}

describe('dashboard REST', () => {
  test('metrics: project, requirement counts and per-framework scores by the documented rules', async () => {
    const a = await createRequirement({ title: 'Critical control', framework: 'iso13485', priority: 'critical' });
    await createRequirement({ title: 'Low control', framework: 'iso13485', priority: 'low' });
    const c = await createRequirement({ title: 'High control', framework: 'iso13485', priority: 'high' });
    await gw.request(`/v1/requirements/${a.id}`, { method: 'PUT', json: { status: 'completed' } });
    await gw.request(`/v1/requirements/${c.id}`, { method: 'PUT', json: { status: 'in-progress' } });
    for (const path of ['/v1/dashboard/metrics', '/api/dashboard/metrics']) {
      const res = await gw.request(path);
      expect(res.status).toBe(200);
      const m: any = await res.json();
      expect(m.project).toEqual({ name: expect.any(String), version: expect.any(String), lastUpdated: expect.any(String) });
      expect(m.requirements).toEqual({ total: 3, completed: 1, inProgress: 1, pending: 1, completionRate: 33.3, unassigned: 0 });
      const iso = m.compliance.frameworks.find((f: any) => f.name === 'iso13485');
      // implementation (4·1 + 3·0.5 + 1·0) / 8 = 68.75; no clause covered, nothing validated (docs/scoring.md):
      // 0.3 · 68.75 = 20.6, non-compliant. The overall score is the mean of the assessed frameworks (only iso13485).
      expect(iso).toEqual({
        name: 'iso13485',
        score: 20.6,
        status: 'non-compliant',
        lastAssessed: expect.any(String),
        scoring: expect.objectContaining({ coverage: { clauses: 48, covered: 0, percent: 0 }, implementation: 68.8, validation: 0 }),
      });
      expect(m.compliance.frameworks.map((f: any) => f.name)).toEqual(['iso13485', 'fda21cfr11', 'gdpr', 'soc2']);
      expect(m.compliance.overallScore).toBe(20.6);
    }
  });

  test('status: healthy, uptime percentage, active users and recent activity from the activity log', async () => {
    for (const path of ['/v1/dashboard/status', '/api/dashboard/status']) {
      const res = await gw.request(path);
      expect(res.status).toBe(200);
      const s: any = await res.json();
      expect(s.status).toBe('healthy');
      expect(s.uptime).toBe('100.00%');
      expect(s.activeUsers).toBe(1); // only the admin has acted
      expect(s.systemHealth).toEqual({ validation: 'operational', compliance: 'operational', monitoring: 'operational' });
      expect(s.recentActivity.length).toBeGreaterThan(0);
      expect(s.recentActivity.length).toBeLessThanOrEqual(10);
      expect(s.recentActivity[0]).toEqual({
        timestamp: expect.any(String),
        type: expect.any(String),
        user: 'admin',
        userKeyId: 'admin',
        description: expect.any(String),
      });
      expect(s.lastActivity).toBe(s.recentActivity[0].timestamp);
    }
  });

  // History buckets by UTC day (by ISO week for 1y), so each case runs at an instant where that
  // matters: just after and just before midnight, the last second of a month and of a year, a
  // Monday just after midnight (a new week), the day after a leap day.
  const INSTANTS = [
    '2026-11-24T00:00:30.000Z',
    '2026-11-24T00:30:00.000Z',
    '2026-11-24T23:59:30.000Z',
    '2027-01-31T23:59:30.000Z',
    '2026-12-31T23:59:59.000Z',
    '2027-02-01T00:00:30.000Z',
    '2028-03-01T00:00:30.000Z',
  ];
  test.each(INSTANTS)('history at %s: daily buckets (last reading wins), least-squares trend, average; weekly for 1y; empty → stable 0', async (instant) => {
    const restore = clock.use(clockStartingAt(instant));
    try {
      const em = gw.db.orm.em.fork();
      await em.nativeDelete(MetricSnapshot, { framework: { $in: ['fda21cfr11', 'soc2'] } });
      const now = clock.nowMs();
      const today = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate());
      const dayStart = (daysAgo: number) => today - daysAgo * DAY;
      let n = 0;
      const snap = (framework: string, at: number, score: number, completion = score) =>
        em.create(MetricSnapshot, {
          id: `snap_t${framework}_${n++}`,
          takenAt: new Date(at),
          framework,
          complianceScore: score,
          requirementCompletion: completion,
          validationRate: 50,
        });
      // fda21cfr11: rising score, falling completion. Readings on the first and the last
      // millisecond of a day stay in that day; of two readings on one day the later one counts.
      snap('fda21cfr11', dayStart(5) + 3_600_000, 10, 90);
      snap('fda21cfr11', dayStart(4) + DAY - 1, 20, 80);
      snap('fda21cfr11', dayStart(3), 99, 70);
      snap('fda21cfr11', dayStart(3) + 12 * 3_600_000, 30, 70);
      snap('fda21cfr11', dayStart(2), 40, 60);
      snap('fda21cfr11', dayStart(40), 0, 0); // outside 7d and 30d
      // soc2: readings over a year, and two a minute apart around the instant itself.
      snap('soc2', now - 300 * DAY, 50);
      snap('soc2', now - 200 * DAY, 50);
      snap('soc2', now - 100 * DAY, 50);
      snap('soc2', now - 60_000, 50);
      snap('soc2', now - 1_000, 50);
      await em.flush();

      const res = await gw.request('/v1/dashboard/history?period=7d&metric=compliance_score&framework=fda21cfr11');
      expect(res.status).toBe(200);
      const h: any = await res.json();
      expect(h.metric).toBe('compliance_score');
      expect(h.period).toBe('7d');
      expect(h.dataPoints).toEqual([5, 4, 3, 2].map((d, i) => ({ timestamp: new Date(dayStart(d)).toISOString(), value: [10, 20, 30, 40][i] })));
      expect(h.trend).toBe('increasing');
      expect(h.averageValue).toBe(25);

      const falling: any = await (await gw.request('/v1/dashboard/history?period=30d&metric=requirement_completion&framework=fda21cfr11')).json();
      expect(falling.dataPoints.map((p: any) => p.value)).toEqual([90, 80, 70, 60]);
      expect(falling.trend).toBe('decreasing');
      const flat: any = await (await gw.request('/v1/dashboard/history?period=90d&metric=validation_rate&framework=fda21cfr11')).json();
      expect(flat.dataPoints).toHaveLength(5);
      expect(flat.trend).toBe('stable');
      expect(flat.averageValue).toBe(50);

      // The last two soc2 readings fall in two days (and two weeks) only when the instant is just
      // after midnight (on a Monday); the expectation says which, by the calendar, not by the code.
      const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      const splitDay = utcDay(now - 60_000) !== utcDay(now - 1_000);
      const splitWeek = splitDay && new Date(now).getUTCDay() === 1;
      const day: any = await (await gw.request('/v1/dashboard/history?period=7d&metric=compliance_score&framework=soc2')).json();
      expect(day.dataPoints.map((p: any) => p.timestamp)).toEqual(
        splitDay ? [new Date(dayStart(1)).toISOString(), new Date(dayStart(0)).toISOString()] : [new Date(dayStart(0)).toISOString()],
      );
      expect(instant.includes('T00:00:30') ? splitDay : !splitDay).toBe(true);

      const year: any = await (await gw.request('/v1/dashboard/history?period=1y&metric=compliance_score&framework=soc2')).json();
      expect(year.dataPoints).toHaveLength(splitWeek ? 5 : 4);
      for (const p of year.dataPoints) {
        expect(new Date(p.timestamp).getUTCDay()).toBe(1); // weeks start on Monday…
        expect(p.timestamp).toMatch(/T00:00:00\.000Z$/); // …at midnight UTC
      }
      expect(year.trend).toBe('stable');

      await em.nativeDelete(MetricSnapshot, { framework: 'soc2' });
      const empty: any = await (await gw.request('/v1/dashboard/history?period=7d&metric=compliance_score&framework=soc2')).json();
      expect(empty).toEqual({ metric: 'compliance_score', period: '7d', framework: 'soc2', dataPoints: [], trend: 'stable', averageValue: 0 });
    } finally {
      restore();
    }
  });

  test('history: bad query values → 400 in the dashboard envelope', async () => {
    for (const q of ['period=2w', 'metric=uptime', 'period=', 'metric=compliance_score&period=7D']) {
      const res = await gw.request(`/v1/dashboard/history?${q}`);
      expect(res.status).toBe(400);
      const body: any = await res.json();
      expect(body.error.code).toBe('VALIDATION_ERROR');
      expect(body.error.details.fields.length).toBeGreaterThan(0);
    }
    const fw = await gw.request('/v1/dashboard/history?framework=hipaa');
    expect(fw.status).toBe(400);
    expect(((await fw.json()) as any).error.details.supportedFrameworks).toHaveLength(4);
  });

  test('permissions: read:dashboard for every read path', async () => {
    const other = await issueKey(gw, ['read:requirements']);
    const reader = await issueKey(gw, ['read:dashboard']);
    for (const path of [
      '/v1/dashboard/metrics',
      '/v1/dashboard/status',
      '/v1/dashboard/history',
      '/api/dashboard/metrics',
      '/api/dashboard/status',
      '/v1/dashboard/reports',
    ]) {
      const anon = await gw.request(path, { auth: null });
      expect(anon.status).toBe(401);
      expect(((await anon.json()) as any).error).toEqual(expect.objectContaining({ code: 'AUTHENTICATION_ERROR', details: expect.any(Object) }));
      expect((await gw.request(path, { auth: other })).status).toBe(403);
      expect((await gw.request(path, { auth: reader })).status).toBe(200);
    }
  });

  test('tRPC and GraphQL expose the same dashboard operations', async () => {
    const trpc = await gw.request('/trpc/live.dashboardMetrics');
    expect(trpc.status).toBe(200);
    const t: any = await trpc.json();
    expect(t.result.data.requirements.total).toBe(3);
    const gql = await gw.request('/graphql', {
      method: 'POST',
      json: {
        query:
          '{ dashboardStatus { status uptime activeUsers systemHealth { compliance } } dashboardHistory(period: LAST_7_DAYS, framework: FDA21CFR11) { trend dataPoints { value } } }',
      },
    });
    const g: any = await gql.json();
    expect(g.errors).toBeUndefined();
    expect(g.data.dashboardStatus.status).toBe('HEALTHY');
    expect(g.data.dashboardHistory.trend).toBe('INCREASING');
    const denied: any = await (
      await gw.request('/graphql', { method: 'POST', json: { query: '{ dashboardMetrics { requirements { total } } }' }, auth: null })
    ).json();
    expect(denied.errors[0].extensions.code).toBe('AUTHENTICATION_ERROR');
  });
});

/** A dashboard socket that records every message it receives. */
async function openSocket(query = `?access_token=${ADMIN_KEY}`, headers: Record<string, string> = {}) {
  const socket = new WebSocket(`${wsUrl}/v1/dashboard/ws${query}`, { headers });
  const messages: any[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(data.toString())));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const next = async (pred: (m: any) => boolean, timeoutMs = 10_000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const found = messages.find(pred);
      if (found) return found;
      if (Date.now() > until) throw new Error(`no matching message; got ${JSON.stringify(messages.map((m) => m.type))}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { socket, messages, next };
}

const upgradeStatus = (query: string, headers: Record<string, string> = {}) => upgradeStatusOf(`${wsUrl}/v1/dashboard/ws${query}`, headers);

describe('dashboard WebSocket', () => {
  test('sees requirement_updated it subscribed to, not validation_completed it did not', async () => {
    const { socket, messages, next } = await openSocket('', { authorization: `Bearer ${ADMIN_KEY}` });
    socket.send(JSON.stringify({ type: 'subscribe', events: ['requirement_updated'] }));
    expect((await next((m) => m.type === 'subscribed')).data.events).toEqual(['requirement_updated']);

    const req = await createRequirement({ title: 'Audit log retention', framework: 'soc2', priority: 'medium' });
    expect((await gw.request(`/v1/requirements/${req.id}/validate`, { method: 'POST' })).status).toBe(200);
    await gw.request(`/v1/requirements/${req.id}`, { method: 'PUT', json: { status: 'in-progress' } });
    const updated = await next((m) => m.type === 'requirement_updated' && m.event === 'requirement.updated');
    expect(updated.data.id).toBe(req.id);
    expect(updated.data.status).toBe('in-progress');
    expect(Date.parse(updated.timestamp)).not.toBeNaN();
    expect(messages.some((m) => m.type === 'requirement_updated' && m.event === 'requirement.created' && m.data.id === req.id)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(messages.map((m) => m.type).filter((t) => !['subscribed', 'requirement_updated'].includes(t))).toEqual([]);

    socket.send(JSON.stringify({ type: 'ping' }));
    await next((m) => m.type === 'pong');
    socket.send(JSON.stringify({ type: 'subscribe', events: ['requirement_updated', 'bogus_event'] }));
    const error = await next((m) => m.type === 'error');
    expect(error.data.code).toBe('VALIDATION_ERROR');
    expect(error.data.message).toContain('bogus_event');
    socket.send('not json');
    await next((m) => m.type === 'error' && /JSON/.test(m.data.message));

    // After unsubscribing, nothing more arrives.
    socket.send(JSON.stringify({ type: 'unsubscribe', events: ['requirement_updated'] }));
    expect((await next((m) => m.type === 'unsubscribed')).data.events).toEqual([]);
    const count = messages.length;
    await gw.request(`/v1/requirements/${req.id}`, { method: 'PUT', json: { status: 'completed' } });
    await new Promise((r) => setTimeout(r, 400));
    expect(messages.length).toBe(count);
    socket.close();
  });

  test('upgrade refused: 401 without or with a wrong key, 403 without read:dashboard', async () => {
    expect(await upgradeStatus('')).toBe(401);
    expect(await upgradeStatus('?access_token=wrong-key-123')).toBe(401);
    expect(await upgradeStatus('', { authorization: 'Bearer wrong-key-123' })).toBe(401);
    const noDash = await issueKey(gw, ['read:requirements']);
    expect(await upgradeStatus(`?access_token=${noDash}`)).toBe(403);
    const dash = await issueKey(gw, ['read:dashboard']);
    expect(await upgradeStatus(`?access_token=${dash}`)).toBe(101);
  });

  test('more than 20 messages per second closes the socket with 1008 naming the limit; oversized frames close it too', async () => {
    const { socket } = await openSocket();
    const closed = new Promise<{ code: number; reason: string }>((r) => socket.on('close', (code, reason) => r({ code, reason: reason.toString() })));
    for (let i = 0; i < 25; i++) socket.send(JSON.stringify({ type: 'ping' }));
    const { code, reason } = await closed;
    expect(code).toBe(1008);
    expect(reason).toMatch(/20 messages per second/);

    const big = await openSocket();
    const bigClosed = new Promise<number>((r) => big.socket.on('close', (c) => r(c)));
    big.socket.send(JSON.stringify({ type: 'subscribe', events: ['x'.repeat(17 * 1024)] }));
    expect(await bigClosed).toBe(1009);
  });

  test('GraphQL subscription over graphql-ws receives a compliance event', async () => {
    const client = createClient({
      url: `${wsUrl}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${ADMIN_KEY}` },
      retryAttempts: 0,
    });
    const received: any[] = [];
    let resolveFirst!: () => void;
    const first = new Promise<void>((r) => (resolveFirst = r));
    const errors: unknown[] = [];
    const dispose = client.subscribe(
      { query: 'subscription { complianceEvents(types: [REQUIREMENT_UPDATED]) { id type wsType data createdAt } }' },
      {
        next: (v) => {
          received.push(v);
          resolveFirst();
        },
        error: (e) => errors.push(e),
        complete: () => undefined,
      },
    );
    try {
      const req = await createRequirement({ title: 'Access reviews quarterly', framework: 'soc2' });
      // The subscription may still be starting; update until an event arrives.
      const until = Date.now() + 10_000;
      let status = 'in-progress';
      while (!received.length && Date.now() < until) {
        await gw.request(`/v1/requirements/${req.id}`, { method: 'PUT', json: { status } });
        status = status === 'in-progress' ? 'pending' : 'in-progress';
        await Promise.race([first, new Promise((r) => setTimeout(r, 300))]);
      }
      expect(errors).toEqual([]);
      const event = received[0].data.complianceEvents;
      expect(event).toEqual({
        id: expect.stringMatching(/^evt_/),
        type: 'REQUIREMENT_UPDATED',
        wsType: 'REQUIREMENT_UPDATED',
        data: expect.objectContaining({ id: req.id }),
        createdAt: expect.any(String),
      });
    } finally {
      dispose();
      await client.dispose();
    }
  });
});

test('tRPC subscription live.complianceEvents streams events over SSE', async () => {
  const req = await createRequirement({ title: 'Vendor risk review', framework: 'gdpr' });
  const input = encodeURIComponent(JSON.stringify({ types: ['requirement_updated'] }));
  const controller = new AbortController();
  const res = await gw.request(`/trpc/live.complianceEvents?input=${input}`, { signal: controller.signal, headers: { accept: 'text/event-stream' } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
  const reading = readSse(res, { until: (e) => e?.type === 'requirement.updated' });
  const poke = setInterval(() => void gw.request(`/v1/requirements/${req.id}`, { method: 'PUT', json: { title: `Vendor risk review ${Date.now()}` } }), 300);
  try {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<any[]>((_, reject) => (timer = setTimeout(() => reject(new Error('no SSE event')), 10_000)));
    const events = await Promise.race([reading, timeout]).finally(() => clearTimeout(timer));
    const last = events[events.length - 1];
    expect(last).toEqual(
      expect.objectContaining({ type: 'requirement.updated', wsType: 'requirement_updated', data: expect.objectContaining({ id: req.id }) }),
    );
  } finally {
    clearInterval(poke);
    controller.abort();
  }
  const denied = await gw.request(`/trpc/live.complianceEvents?input=${input}`, { auth: null, headers: { accept: 'text/event-stream' } });
  const text = await denied.text();
  expect(text).toMatch(/UNAUTHORIZED|AUTHENTICATION_ERROR/);
});

test('a dashboard client that stops reading is closed with 1008 once more than WS_LIMITS.maxBufferedBytes wait for it', async () => {
  const { socket, next } = await openSocket();
  socket.send(JSON.stringify({ type: 'subscribe', events: ['requirement_updated'] }));
  await next((m) => m.type === 'subscribed');
  const reader = await openSocket(); // a client that keeps reading is not affected
  reader.socket.send(JSON.stringify({ type: 'subscribe', events: ['requirement_updated'] }));
  await reader.next((m) => m.type === 'subscribed');

  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  (socket as any)._socket.pause(); // stop reading: the kernel buffers fill, then the server's
  const padding = 'x'.repeat(64 * 1024);
  // Published straight on the bus (as any instance would): 200 events of 64 KB, far past the kernel's buffers and 1 MiB.
  // In batches the reading client has taken before the next: it keeps up by construction, however
  // busy the machine, while the paused one falls behind by every batch.
  for (let i = 0; i < 200; i++) {
    await gw.services.bus.publish('compliance', {
      id: `evt_slow_${i}`,
      type: 'requirement.created',
      data: { id: `req_slow_${i}`, padding },
      createdAt: new Date().toISOString(),
    });
    if (i % 10 === 9) await reader.next((m) => m.data?.id === `req_slow_${i}`, 20_000);
  }
  (socket as any)._socket.resume();
  const { code, reason } = await closed;
  expect(code).toBe(1008);
  expect(reason).toMatch(/slow consumer/);
  // The reading client got every event.
  await reader.next((m) => m.data?.id === 'req_slow_199', 20_000);
  expect(reader.socket.readyState).toBe(WebSocket.OPEN);
  reader.socket.close();
}, 60_000);
