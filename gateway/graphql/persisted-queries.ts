import type { NextFunction, Request, Response } from 'express';
import type Redis from 'ioredis';
import { ErrorsAreMissesCache, InMemoryLRUCache, type KeyValueCache, type KeyValueCacheSetOptions } from '@apollo/utils.keyvaluecache';
import { DomainError } from '../../domain/errors';
import { graphqlExtensionsOf, toClientError } from '../../transport/client-error';
import type { Logger } from '../logger';
import { assertDocumentNesting } from './parts/input-depth';
import { documentKeyOf } from './pipeline';

/**
 * Automatic persisted queries (Apollo's APQ protocol, `extensions.persistedQuery` {version: 1,
 * sha256Hash}) are Apollo Server's own feature; the gateway gives it its store and checks the
 * extension before Apollo does, so a bad one is a 400 VALIDATION_ERROR in the gateway's envelope
 * (Apollo's own answer to a mismatched hash carries no error code).
 */

/** Where the texts live in Redis (Apollo adds `apq:` to each key). */
const REDIS_PREFIX = 'gql:';
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Query texts in Redis, each with its time to live; a key's text is trusted only when it hashes to the key. */
class RedisTextCache implements KeyValueCache<string> {
  constructor(
    private readonly redis: Redis,
    private readonly ttlSeconds: number,
  ) {}

  async get(key: string): Promise<string | undefined> {
    const text = await this.redis.get(REDIS_PREFIX + key);
    if (text === null) return undefined;
    // `apq:<sha256>`: a text that does not hash to its key, or that Apollo's parser must not see
    // (nested too deep: the guard in front of Apollo never saw it), was written by something else.
    const hash = key.slice(key.lastIndexOf(':') + 1);
    if (documentKeyOf(text) !== hash) return undefined;
    try {
      assertDocumentNesting(text);
    } catch {
      return undefined;
    }
    return text;
  }

  async set(key: string, value: string, options?: KeyValueCacheSetOptions): Promise<void> {
    await this.redis.set(REDIS_PREFIX + key, value, 'EX', options?.ttl ?? this.ttlSeconds);
  }

  async delete(key: string): Promise<boolean> {
    return (await this.redis.del(REDIS_PREFIX + key)) > 0;
  }
}

/** The in-process LRU in front of Redis: a text read from Redis is kept here too; Redis trouble is a miss. */
class TieredTextCache implements KeyValueCache<string> {
  constructor(
    private readonly local: KeyValueCache<string>,
    private readonly shared: KeyValueCache<string> | undefined,
    private readonly log: Logger,
  ) {}

  async get(key: string): Promise<string | undefined> {
    const known = await this.local.get(key);
    if (known !== undefined || !this.shared) return known;
    const text = await this.shared.get(key);
    if (text !== undefined) await this.local.set(key, text);
    return text;
  }

  async set(key: string, value: string, options?: KeyValueCacheSetOptions): Promise<void> {
    await this.local.set(key, value, options);
    // Not shared this time: other instances ask the client for the text once more.
    await this.shared
      ?.set(key, value, options)
      .catch((err: unknown) => this.log.warn({ err, component: 'persisted-queries' }, 'persisted query not written to Redis'));
  }

  async delete(key: string): Promise<boolean> {
    const [a, b] = await Promise.all([this.local.delete(key), this.shared?.delete(key).catch(() => false)]);
    return Boolean(a || b);
  }
}

export interface PersistedQueryOptions {
  /** Bytes of query text kept in this process (least recently used go first). */
  maxBytes: number;
  /** How long a registered text is kept (seconds), here and in Redis. */
  ttlSeconds: number;
  /** Shared by every instance when set; a Redis failure is a miss (the client sends the text again). */
  redis?: Redis;
  log: Logger;
}

/** The store of registered query texts: bounded in memory, shared through Redis when there is one. */
export function persistedQueryStore(opts: PersistedQueryOptions): KeyValueCache<string> {
  const local = new InMemoryLRUCache<string>({ maxSize: opts.maxBytes, sizeCalculation: (text) => Math.max(1, Buffer.byteLength(text, 'utf8')) });
  const logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message: unknown) => opts.log.warn({ component: 'persisted-queries' }, String(message)),
    error: (message: unknown) => opts.log.warn({ component: 'persisted-queries' }, String(message)),
  };
  const shared = opts.redis ? new ErrorsAreMissesCache(new RedisTextCache(opts.redis, opts.ttlSeconds), logger) : undefined;
  return new TieredTextCache(local, shared, opts.log);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The refusal of a malformed or mismatched `persistedQuery` extension, or undefined when Apollo may take it. */
export function persistedQueryRefusal(query: unknown, extensions: unknown): DomainError | undefined {
  if (!isRecord(extensions) || extensions.persistedQuery === undefined) return undefined;
  const pq = extensions.persistedQuery;
  const refuse = (message: string) => new DomainError('VALIDATION_ERROR', message, { fields: [{ field: 'extensions.persistedQuery', message }] });
  if (!isRecord(pq)) return refuse('extensions.persistedQuery must be an object {version: 1, sha256Hash}');
  if (pq.version !== 1) return refuse('extensions.persistedQuery.version must be 1 (the only version of automatic persisted queries)');
  if (typeof pq.sha256Hash !== 'string' || !SHA256_HEX.test(pq.sha256Hash)) {
    return refuse('extensions.persistedQuery.sha256Hash must be the SHA-256 of the query text in 64 lowercase hex digits');
  }
  if (typeof query === 'string' && query !== '' && documentKeyOf(query) !== pq.sha256Hash) {
    return refuse('extensions.persistedQuery.sha256Hash does not match the SHA-256 of the query text sent with it');
  }
  return undefined;
}

/** GET carries `extensions` as JSON text; text that is not JSON is left to Apollo's own 400. */
function extensionsOf(req: Request): unknown {
  const body = req.body as { extensions?: unknown } | undefined;
  if (isRecord(body)) return body.extensions;
  const given = (req.query as Record<string, unknown> | undefined)?.extensions;
  if (typeof given !== 'string') return undefined;
  try {
    return JSON.parse(given) as unknown;
  } catch {
    return undefined;
  }
}

/** In front of Apollo: a bad `persistedQuery` extension answers 400 VALIDATION_ERROR (POST and GET alike). */
export function persistedQueryGuard() {
  return (req: Request, res: Response, next: NextFunction) => {
    const body = req.body as { query?: unknown } | undefined;
    const query = isRecord(body) ? body.query : (req.query as Record<string, unknown> | undefined)?.query;
    const refusal = persistedQueryRefusal(query, extensionsOf(req));
    if (!refusal) return next();
    const err = toClientError(refusal);
    res
      .status(err.status)
      .type('application/json')
      .send(JSON.stringify({ errors: [{ message: err.message, extensions: graphqlExtensionsOf(err) }] }));
  };
}
