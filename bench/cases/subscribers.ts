import { createClient, type Client as GqlWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { mapLimit } from '../../domain/util/concurrency';
import { rssMb as ownRssMb, treeRssMb as rssMb, type Child } from '../lib/proc';
import type { Report } from '../lib/report';

const EVENTS = 100;
const TYPE = 'requirement.created';

interface Subscriber {
  kind: 'dashboard-ws' | 'graphql-ws' | 'trpc-sse';
  ids: Set<string>;
  close(): void;
}

/** The id of the requirement an event is about, whichever transport wrapped it. */
const requirementIdOf = (data: any): string | undefined => data?.id ?? data?.requirement?.id ?? data?.requirementId;

function dashboardSubscriber(wsUrl: string, key: string): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${wsUrl}/v1/dashboard/ws?access_token=${encodeURIComponent(key)}`);
    const sub: Subscriber = { kind: 'dashboard-ws', ids: new Set(), close: () => socket.terminate() };
    socket.once('error', reject);
    socket.once('open', () => socket.send(JSON.stringify({ type: 'subscribe', events: ['requirement_updated'] })));
    socket.on('message', (raw) => {
      const m = JSON.parse(raw.toString());
      if (m.type === 'subscribed') resolve(sub);
      else if (m.event === TYPE) {
        const id = requirementIdOf(m.data);
        if (id) sub.ids.add(id);
      }
    });
  });
}

function graphqlWsSubscriber(wsUrl: string, key: string): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    let client: GqlWsClient;
    const sub: Subscriber = { kind: 'graphql-ws', ids: new Set(), close: () => void client.dispose() };
    client = createClient({
      url: `${wsUrl}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${key}` },
      lazy: false,
      retryAttempts: 0,
      on: { connected: () => setTimeout(() => resolve(sub), 50), error: reject },
    });
    client.subscribe(
      // GraphQL names the type by its enum member (requirement.created -> REQUIREMENT_CREATED).
      { query: 'subscription { complianceEvents(types: [REQUIREMENT_CREATED]) { id type data } }' },
      {
        next: (r: any) => {
          const id = requirementIdOf(r.data?.complianceEvents?.data);
          if (id) sub.ids.add(id);
        },
        error: reject,
        complete: () => undefined,
      },
    );
  });
}

/** tRPC subscription over SSE (what tRPC's httpSubscriptionLink speaks): GET with `?input=`. */
async function trpcSseSubscriber(httpUrl: string, key: string): Promise<Subscriber> {
  const abort = new AbortController();
  const input = encodeURIComponent(JSON.stringify({ types: [TYPE] }));
  const res = await fetch(`${httpUrl}/trpc/live.complianceEvents?input=${input}`, {
    headers: { accept: 'text/event-stream', authorization: `Bearer ${key}` },
    signal: abort.signal,
  });
  if (res.status !== 200) throw new Error(`tRPC SSE answered ${res.status}: ${await res.text()}`);
  const sub: Subscriber = { kind: 'trpc-sse', ids: new Set(), close: () => abort.abort() };
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as any as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let i: number;
        while ((i = buffer.indexOf('\n\n')) >= 0) {
          const data = buffer
            .slice(0, i)
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trim())
            .join('\n');
          buffer = buffer.slice(i + 2);
          if (!data) continue;
          const v = JSON.parse(data);
          if (v?.type === TYPE) {
            const id = requirementIdOf(v.data);
            if (id) sub.ids.add(id);
          }
        }
      }
    } catch {
      /* aborted at the end */
    }
  })();
  return sub;
}

/**
 * The gateway process's memory as its own /metrics reports it (prom-client's process and V8
 * figures), in MB: what a high RSS is made of (live objects, garbage the collector has not yet
 * returned, buffers outside the heap, the rest: code, stacks, malloc's arenas).
 */
async function memoryOf(gwUrl: string): Promise<string> {
  const text = await (await fetch(`${gwUrl}/metrics`)).text();
  const mb = (name: string) => {
    const m = new RegExp(`^${name} (\\S+)`, 'm').exec(text);
    return m ? Number(m[1]) / 2 ** 20 : NaN;
  };
  const rss = mb('process_resident_memory_bytes');
  const heapUsed = mb('nodejs_heap_size_used_bytes');
  const heapTotal = mb('nodejs_heap_size_total_bytes');
  const external = mb('nodejs_external_memory_bytes');
  return `RSS ${rss.toFixed(0)}: V8 heap ${heapTotal.toFixed(0)} (live or not yet collected ${heapUsed.toFixed(0)}), outside the heap (buffers) ${external.toFixed(0)}, the rest ${(rss - heapTotal - external).toFixed(0)}`;
}

/**
 * `count` idle subscribers, split over the dashboard WebSocket, graphql-ws and tRPC over SSE, all
 * filtered to requirement creations; then 100 requirements are created over REST and every
 * subscriber must have seen each of them. RSS is read with everyone connected, every 50 ms while
 * events are delivered (the budget takes the peak) and after delivery.
 */
export async function runSubscribersCase(report: Report, gw: Child, adminKey: string, count: number) {
  const wsUrl = gw.url.replace(/^http/, 'ws');
  const rssIdle = rssMb(gw.pid);
  const memoryIdle = await memoryOf(gw.url);
  const kinds = [dashboardSubscriber, graphqlWsSubscriber, (u: string, k: string) => trpcSseSubscriber(gw.url, k)];
  const subscribers = await mapLimit(
    Array.from({ length: count }, (_, i) => i),
    50,
    (i) => kinds[i % 3](wsUrl, adminKey),
  );
  await new Promise((r) => setTimeout(r, 500));
  const rssConnected = rssMb(gw.pid);
  // An instant reading after delivery lands anywhere in the collector's cycle (the same run read
  // 270 or 450 MB depending on when the last major GC ran), so the peak while events flow is kept too.
  let rssPeak = rssConnected;
  // The gateway process's own peak beside the tree's (the tree adds the embedded database's process).
  let ownPeak = ownRssMb(gw.pid);
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssMb(gw.pid));
    ownPeak = Math.max(ownPeak, ownRssMb(gw.pid));
  }, 50);
  sampler.unref();

  const created: string[] = [];
  const t0 = performance.now();
  await mapLimit(
    Array.from({ length: EVENTS }, (_, i) => i),
    4,
    async (i) => {
      const res = await fetch(`${gw.url}/v1/requirements`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${adminKey}` },
        body: JSON.stringify({ title: `Subscriber bench ${i}`, framework: 'gdpr', priority: 'medium' }),
      });
      const body: any = await res.json();
      if (res.status !== 201 && res.status !== 200) throw new Error(`create requirement → ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
      created.push(body.id ?? body.data?.id);
    },
  );
  // Wait (bounded) until everyone has everything.
  const complete = () => subscribers.every((s) => created.every((id) => s.ids.has(id)));
  const deadline = Date.now() + 30_000;
  while (!complete() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const deliveredMs = performance.now() - t0;
  clearInterval(sampler);
  const rssAfter = rssMb(gw.pid);
  const ownAfter = ownRssMb(gw.pid);
  const memoryAfter = await memoryOf(gw.url);
  rssPeak = Math.max(rssPeak, rssAfter);

  const byKind = new Map<string, { n: number; full: number }>();
  for (const s of subscribers) {
    const k = byKind.get(s.kind) ?? { n: 0, full: 0 };
    k.n++;
    if (created.every((id) => s.ids.has(id))) k.full++;
    byKind.set(s.kind, k);
  }
  const missing = subscribers.filter((s) => !created.every((id) => s.ids.has(id))).length;
  for (const s of subscribers) s.close();

  report.note(
    `subscribers: ${[...byKind].map(([k, v]) => `${k} ${v.full}/${v.n} complete`).join(', ')}; ${EVENTS} events delivered to all in ${deliveredMs.toFixed(0)} ms; ` +
      `RSS idle ${rssIdle.toFixed(1)} MB → ${rssConnected.toFixed(1)} MB connected → peak ${rssPeak.toFixed(1)} MB during delivery, ${rssAfter.toFixed(1)} MB after delivery (+${(rssPeak - rssIdle).toFixed(1)} MB for the subscribers at the peak); ` +
      `of which the gateway process alone: peak ${ownPeak.toFixed(1)} MB, the processes it started ${(rssAfter - ownAfter).toFixed(1)} MB after delivery`,
  );
  report.note(`subscribers: the gateway process by its /metrics, in MB: before connecting ${memoryIdle}; after delivery ${memoryAfter}`);
  report.budget(`${count} subscribers each received all ${EVENTS} events (subscribers missing any)`, missing, '<=', 0, 'count');
  report.budget(`RSS with ${count} subscribers, peak while delivering (MB)`, Math.round(Math.max(rssConnected, rssPeak)), '<=', 300, 'count');
}
