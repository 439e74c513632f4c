import { createHash } from 'node:crypto';
import Redis from 'ioredis';
import { persistedQueryRefusal, persistedQueryStore } from '../../gateway/graphql/persisted-queries';
import { createLogger } from '../../gateway/logger';

/** The APQ store (gateway/graphql/persisted-queries.ts) on its own: its bound, and Redis trouble as misses. */
const log = createLogger('silent');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

test('bounded by bytes: the least recently used texts go first, a read keeps a text', async () => {
  const store = persistedQueryStore({ maxBytes: 300, ttlSeconds: 60, log });
  const texts = ['a', 'b', 'c', 'd'].map((c) => `{ ${c}: __typename }`.padEnd(100, ' '));
  for (const text of texts.slice(0, 3)) await store.set(`apq:${sha256(text)}`, text);
  expect(await store.get(`apq:${sha256(texts[0])}`)).toBe(texts[0]); // now the most recently used
  await store.set(`apq:${sha256(texts[3])}`, texts[3]);
  expect(await store.get(`apq:${sha256(texts[1])}`)).toBeUndefined();
  for (const i of [0, 2, 3]) expect(await store.get(`apq:${sha256(texts[i])}`)).toBe(texts[i]);
});

test('a Redis that cannot be reached is a miss, never an error: the in-memory tier still answers', async () => {
  // Port 1 on loopback: nothing listens; the connection is refused at once.
  const redis = new Redis({ host: '127.0.0.1', port: 1, lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  redis.on('error', () => undefined);
  try {
    const store = persistedQueryStore({ maxBytes: 1024, ttlSeconds: 60, redis, log });
    const text = '{ viewer { name } }';
    await expect(store.set(`apq:${sha256(text)}`, text)).resolves.toBeUndefined();
    expect(await store.get(`apq:${sha256(text)}`)).toBe(text);
    expect(await store.get(`apq:${sha256('{ other }')}`)).toBeUndefined();
  } finally {
    redis.disconnect();
  }
});

test('the extension check: only version 1, a 64-hex hash, matching the text when one is sent', () => {
  const text = '{ __typename }';
  expect(persistedQueryRefusal(text, { persistedQuery: { version: 1, sha256Hash: sha256(text) } })).toBeUndefined();
  expect(persistedQueryRefusal(undefined, { persistedQuery: { version: 1, sha256Hash: sha256(text) } })).toBeUndefined();
  expect(persistedQueryRefusal(text, undefined)).toBeUndefined();
  expect(persistedQueryRefusal(text, {})).toBeUndefined();
  expect(persistedQueryRefusal(text, { persistedQuery: { version: 1, sha256Hash: sha256(text + ' ') } })?.code).toBe('VALIDATION_ERROR');
  expect(persistedQueryRefusal(text, { persistedQuery: { version: 1, sha256Hash: sha256(text).toUpperCase() } })?.message).toMatch(/64 lowercase hex/);
  expect(persistedQueryRefusal(undefined, { persistedQuery: { version: '1', sha256Hash: sha256(text) } })?.message).toMatch(/version must be 1/);
  expect(persistedQueryRefusal(undefined, { persistedQuery: null })?.message).toMatch(/must be an object/);
});
