import express from 'express';
import { WindowCounterStore } from '../../gateway/rate-limit';
import type { TestGateway } from './gateway';

/** An answer as the client sees it: status, body text, every header (lower-case names). */
export interface LaneAnswer {
  status: number;
  text: string;
  headers: Record<string, string>;
}

/** A GET as sent (fetch adds no `Origin`), with the given key (`null`: none) and headers. */
export async function readAnswer(gw: TestGateway, path: string, auth: string | null, headers: Record<string, string> = {}): Promise<LaneAnswer> {
  const res = await gw.request(path, { auth, headers });
  return { status: res.status, text: await res.text(), headers: Object.fromEntries(res.headers) };
}

/** Every header but those that differ between any two requests (the request id, the date); the count is compared on its own. */
export const comparable = (a: LaneAnswer) => {
  const { 'x-request-id': _id, date: _date, 'x-ratelimit-remaining': _remaining, ...rest } = a.headers;
  return rest;
};

/**
 * Whether express saw a request: its router runs for every request the lanes hand on (REST, tRPC
 * and GraphQL are all mounted in express), and for no other.
 */
export const expressRouter = () => jest.spyOn(express.Router.prototype as { handle: (...args: unknown[]) => unknown }, 'handle').mockClear();

/**
 * The plan limit's net count on API keys (`key:…`) since the call: increments minus decrements on
 * the in-process store the limiter, tRPC's budgets and the lane share (the tests run without Redis).
 */
export function planCount(): () => number {
  const increments = jest.spyOn(WindowCounterStore.prototype, 'increment');
  const decrements = jest.spyOn(WindowCounterStore.prototype, 'decrement');
  const onKeys = (calls: unknown[][]) => calls.filter(([key]) => typeof key === 'string' && key.startsWith('key:')).length;
  const start = onKeys(increments.mock.calls) - onKeys(decrements.mock.calls);
  return () => onKeys(increments.mock.calls) - onKeys(decrements.mock.calls) - start;
}
