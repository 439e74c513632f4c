import http from 'node:http';
import { Writable } from 'node:stream';
import express from 'express';
import { createLogger } from '../../gateway/logger';
import { WindowCounterStore } from '../../gateway/rate-limit';
import type { DomainContext } from '../../domain/context';
import { okJson, type TestGateway } from './gateway';

/**
 * The two domain calls of two concurrent seam answers had contexts of their own: each answer's
 * request id, distinct EntityManager forks (never the root one) and loaders, the caller's key.
 */
export function expectContextsOfTheirOwn(gw: TestGateway, calls: unknown[][], answers: Answer[], keyName: string): void {
  const contexts = calls.map(([ctx]) => ctx as DomainContext);
  expect(contexts.map((c) => c.requestId).sort()).toEqual(answers.map((a) => a.headers['x-request-id']).sort());
  expect(contexts[0].em).not.toBe(contexts[1].em);
  expect(contexts[0].loaders).not.toBe(contexts[1].loaders);
  for (const ctx of contexts) {
    expect(ctx.em).not.toBe(gw.db.orm.em);
    expect(ctx.principal?.name).toBe(keyName);
  }
}

/** A debug logger whose JSON lines the test reads (`lines`), for a gateway started with it. */
export function capturedLog() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, logger: createLogger('debug', sink) };
}

/** Three requirements, one per framework (gdpr, soc2, iso13485), titled `<title> <n>`; their ids in that order. */
export async function seedRequirements(gw: TestGateway, title: string, criterion: string): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, framework] of ['gdpr', 'soc2', 'iso13485'].entries()) {
    ids.push(
      (await okJson(gw, '/v1/requirements', { method: 'POST', json: { title: `${title} ${i}`, framework, priority: 'high', acceptanceCriteria: [criterion] } }))
        .id,
    );
  }
  return ids;
}

/** An answer as the client sees it: status, body text, every header (lower-case names). */
export interface Answer {
  status: number;
  text: string;
  headers: Record<string, string>;
}

/** A GET as sent (fetch adds no `Origin`), with the given key (`null`: none) and headers. */
export async function readAnswer(gw: TestGateway, path: string, auth: string | null, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await gw.request(path, { auth, headers });
  return { status: res.status, text: await res.text(), headers: Object.fromEntries(res.headers) };
}

/**
 * An answer's text with its seconds-to-wait blanked (`retry in 3597 s`, `"retryAfter","message":"3597"`,
 * `"retryAfter":3597`): two refusals a moment apart may straddle a second; compare the seconds apart.
 */
export const withoutRetrySeconds = (text: string) => text.replace(/\d+ s\b/g, 'N s').replace(/("retryAfter"(?:,"message")?:"?)\d+/g, '$1N');

/**
 * Every header but those that differ between any two requests (the request id, the date) and the
 * framing (a length or chunks: the same bytes either way); the count is compared on its own.
 */
export const comparable = (a: Answer) => {
  const {
    'x-request-id': _id,
    date: _date,
    'x-ratelimit-remaining': _remaining,
    'content-length': _length,
    'transfer-encoding': _chunked,
    ...rest
  } = a.headers;
  return rest;
};

/**
 * Whether express saw a request: its router runs for every request the seam hands on (REST, tRPC
 * and GraphQL are all mounted in express), and for no other.
 */
export const expressRouter = () => jest.spyOn(express.Router.prototype as { handle: (...args: unknown[]) => unknown }, 'handle').mockClear();

/**
 * The plan limit's net count on API keys (`key:…`) since the call: increments minus decrements on
 * the in-process store the limiter, tRPC's budgets and the seam share (the tests run without Redis).
 */
export function planCount(): () => number {
  const increments = jest.spyOn(WindowCounterStore.prototype, 'increment');
  const decrements = jest.spyOn(WindowCounterStore.prototype, 'decrement');
  const onKeys = (calls: unknown[][]) => calls.filter(([key]) => typeof key === 'string' && key.startsWith('key:')).length;
  const start = onKeys(increments.mock.calls) - onKeys(decrements.mock.calls);
  return () => onKeys(increments.mock.calls) - onKeys(decrements.mock.calls) - start;
}

/**
 * A raw `POST /graphql` as sent (node:http: exactly the headers given, no `Origin`), with the given
 * key (`null`: none) and headers.
 */
export function postGraphql(gw: TestGateway, body: string | object, auth: string | null, headers: Record<string, string> = {}): Promise<Answer> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const all: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...(auth ? { authorization: `Bearer ${auth}` } : {}),
    ...headers,
  };
  return new Promise((resolve, reject) => {
    const req = http.request(`${gw.url}/graphql`, { method: 'POST', headers: all }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers as Record<string, string> }));
    });
    req.on('error', reject);
    req.end(text);
  });
}
