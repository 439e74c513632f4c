/**
 * Node's request and response objects keep one shape per kind of answer (gateway/front/object-shapes.ts):
 * every request express serves ends with the same fields in the same order, and so does every request
 * the front answers itself. A new field, or a field added in another order, gives node's HTTP code
 * another hidden class to tell apart on every request; an express or router upgrade that adds one fails
 * here until object-shapes.ts names it. Observed through node's public `http.server.response.finish`
 * diagnostics channel, on real HTTP requests of every kind.
 */
import diagnostics from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { issueKey, useGateway } from '../helpers/gateway';

const gw = useGateway();

/** An object's own fields in order (symbols by their description). */
const shapeOf = (o: object) => Reflect.ownKeys(o).map((k) => (typeof k === 'symbol' ? `@${k.description}` : k));

interface Seen {
  path: string;
  byExpress: boolean;
  request: string[];
  response: string[];
}
const seen: Seen[] = [];
const onFinish = (message: unknown) => {
  const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
  seen.push({ path: request.url ?? '', byExpress: Object.hasOwn(response, 'locals'), request: shapeOf(request), response: shapeOf(response) });
};
beforeAll(() => diagnostics.subscribe('http.server.response.finish', onFinish));
afterAll(() => diagnostics.unsubscribe('http.server.response.finish', onFinish));

/** The distinct shapes among `kinds`, each with the paths that had it. */
function distinct(kinds: Seen[], of: 'request' | 'response') {
  const shapes = new Map<string, string[]>();
  for (const s of kinds) shapes.set(s[of].join(','), [...(shapes.get(s[of].join(',')) ?? []), s.path]);
  return [...shapes].map(([shape, paths]) => ({ shape, paths }));
}

test('every request express serves has one shape, and every request the front answers has one', async () => {
  const key = await issueKey(gw, ['read:requirements', 'write:requirements', 'tts:generate', 'tts:read']);
  const auth = { authorization: `Bearer ${key}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(gw.url + path, init);
    await res.arrayBuffer();
    return res.status;
  };
  const generation = JSON.stringify({ text: 'Shapes of requests.', options: { provider: 'mock', format: 'mp3' } });
  const generated = await fetch(`${gw.url}/api/v1/generate`, { method: 'POST', headers: json, body: generation }).then(
    (r) => r.json() as Promise<{ audioUrl: string }>,
  );

  // Answered by express (and tRPC and Apollo behind it): a miss, an error, a page, a document.
  const byExpress: [string, RequestInit?][] = [
    ['/'],
    ['/api/docs'],
    ['/api/v1/health'],
    ['/metrics'],
    ['/no-such-path'],
    ['/v1/requirements?limit=2', { headers: auth }],
    ['/v1/requirements/req_unknown', { headers: auth }],
    ['/v1/requirements', { method: 'POST', headers: json, body: JSON.stringify({ title: 'Shaped', framework: 'gdpr', priority: 'high' }) }],
    ['/v1/requirements', { method: 'POST', headers: json, body: JSON.stringify({ title: '' }) }],
    ['/api/v1/generate', { method: 'POST', headers: json, body: JSON.stringify({ text: 'Another shape.', options: { provider: 'mock' } }) }],
    ['/graphql', { method: 'POST', headers: json, body: JSON.stringify({ query: '{ requirements(limit: 2) { data { id } } }' }) }],
    ['/graphql', { method: 'POST', headers: json, body: JSON.stringify({ query: '{ nope }' }) }],
    [`/trpc/compliance.requirements?input=${encodeURIComponent(JSON.stringify({ limit: 3 }))}`, { headers: auth }],
    ['/trpc/compliance.createRequirement', { method: 'POST', headers: json, body: JSON.stringify({ title: 'Shaped too', framework: 'soc2' }) }],
  ];
  for (const [path, init] of byExpress) await call(path, init);
  // Answered by the front itself: cache hits, and hot audio.
  for (let i = 0; i < 3; i++) {
    expect(await call('/api/v1/generate', { method: 'POST', headers: json, body: generation })).toBe(200);
    expect(await call(generated.audioUrl)).toBe(200);
  }

  const express = seen.filter((s) => s.byExpress);
  const front = seen.filter((s) => !s.byExpress);
  expect(express.length).toBeGreaterThanOrEqual(byExpress.length);
  // The three repeated generations at least (the audio too, while the hot tier holds it).
  expect(front.filter((s) => s.path === '/api/v1/generate').length).toBeGreaterThanOrEqual(3);
  expect(distinct(express, 'request')).toHaveLength(1);
  expect(distinct(express, 'response')).toHaveLength(1);
  expect(distinct(front, 'request')).toHaveLength(1);
  expect(distinct(front, 'response')).toHaveLength(1);
  // The fields node would add on first write are there from the start, on every answer.
  for (const s of seen) {
    expect(s.response).toEqual(expect.arrayContaining(['statusCode', 'statusMessage']));
    expect(s.request).toContain('_eventsCount');
  }
});
