import type { EntityManager } from '@mikro-orm/postgresql';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkAnswer } from './contract';
import { createPostgresDatabase, testPostgresUrl } from './database';
import { parseConfig } from '../../gateway/config';
import { createGateway, type Gateway } from '../../gateway/server';
import { createLogger, type Logger } from '../../gateway/logger';

export const ADMIN_KEY = 'test-admin-key-0123456789abcdef';

export interface TestGateway extends Gateway {
  dataDir: string;
  /** fetch against the gateway, with the admin key unless `auth: null` or another key is given. */
  request(pathname: string, init?: RequestInit & { json?: unknown; auth?: string | null }): Promise<Response>;
  close(): Promise<void>;
}

/**
 * A real gateway on a loopback port. On the embedded database by default; when the environment
 * names a PostgreSQL server (TEST_DATABASE_URL or DATABASE_URL), each gateway gets a fresh
 * database of its own there, dropped again on close.
 */
export async function startGateway(env: Record<string, string | undefined> = {}, opts: { logger?: Logger } = {}): Promise<TestGateway> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-test-'));
  const pgBase = testPostgresUrl();
  let databaseUrl: string | undefined = env.DATABASE_URL;
  let dropDatabase: (() => Promise<void>) | undefined;
  if (!databaseUrl && pgBase && env.DATABASE_URL !== '') {
    const db = await createPostgresDatabase(pgBase);
    databaseUrl = db.url;
    dropDatabase = () => db.drop();
  }
  const config = parseConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ADMIN_API_KEY: ADMIN_KEY,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    API_RATE_LIMIT: '100000',
    // Suites that are not about speech budgets generate freely (tests/e2e/speech-budgets.test.ts is).
    TTS_CHARS_PER_MINUTE: '100000000',
    TTS_MAX_CONCURRENT_PER_CLIENT: '64',
    TTS_MAX_CONCURRENT_GENERATIONS: '64',
    TTS_ADMISSION_QUEUE: '1000',
    // On a machine shared with other suites at nice 0, audio threads at 19 would wait behind all of
    // them; their priority is tested on its own (tests/unit/audio-workers.test.ts).
    AUDIO_WORKER_NICE: '0',
    ...env,
    DATABASE_URL: databaseUrl,
  } as NodeJS.ProcessEnv);
  const gw = await createGateway(config, { logger: opts.logger ?? createLogger(config.logLevel) });
  const request: TestGateway['request'] = (pathname, init = {}) => {
    const { json, auth, ...rest } = init;
    const headers = new Headers(rest.headers);
    const key = auth === undefined ? ADMIN_KEY : auth;
    if (key) headers.set('authorization', `Bearer ${key}`);
    if (json !== undefined) headers.set('content-type', 'application/json');
    return fetch(gw.url + pathname, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body }).then(async (res) => {
      const media = res.headers.get('content-type');
      const body = media?.startsWith('application/json')
        ? await res
            .clone()
            .json()
            .catch(() => undefined)
        : undefined;
      checkAnswer(rest.method ?? 'GET', pathname, res.status, media, body);
      return res;
    });
  };
  return {
    ...gw,
    dataDir,
    request,
    async close() {
      await gw.stop();
      await dropDatabase?.();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The file's (or describe block's) gateway: started in beforeAll, closed in afterAll. Until then the
 * handle throws when used; afterwards it answers for the running gateway.
 */
export function useGateway(env: Record<string, string | undefined> = {}, opts: { logger?: Logger } = {}): TestGateway {
  let started: TestGateway | undefined;
  beforeAll(async () => {
    started = await startGateway(env, opts);
  }, 180_000);
  afterAll(async () => {
    await started?.close();
  });
  return new Proxy({} as TestGateway, {
    get(_target, key) {
      if (!started) throw new Error('the gateway starts in beforeAll');
      return started[key as keyof TestGateway];
    },
  });
}

/** The JSON body of a request that must succeed; any other status fails the test with the answer. */
export async function okJson(gw: TestGateway, pathname: string, init: Parameters<TestGateway['request']>[1] = {}): Promise<any> {
  const res = await gw.request(pathname, init);
  const body = await res.json();
  if (res.status >= 300) throw new Error(`${init.method ?? 'GET'} ${pathname} → ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

/** SQL on a started gateway's own database (checks beside the API). */
export const sqlOf =
  (gw: TestGateway) =>
  (text: string, params: unknown[] = []): Promise<Record<string, any>[]> =>
    (gw.db.orm.em as unknown as EntityManager).getConnection().execute(text, params);

/** A request whose answer is read as JSON when it has a body: status, body (or null) and headers. */
export async function callJson(
  gw: TestGateway,
  pathname: string,
  init: Parameters<TestGateway['request']>[1] = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await gw.request(pathname, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

/** A GraphQL operation over HTTP (as the admin unless `auth` says otherwise): the status and the parsed body. */
export async function graphql(
  gw: TestGateway,
  query: string,
  variables?: Record<string, unknown>,
  auth?: string | null,
): Promise<{ status: number; body: any }> {
  const res = await gw.request('/graphql', { method: 'POST', json: { query, variables }, auth });
  return { status: res.status, body: (await res.json()) as any };
}

export interface IssuedTestKey {
  id: string;
  key: string;
  expiresAt: string | null;
}

/** Issues a key through the real endpoint, as the admin or as the key `auth`; fails unless it is a 201. */
export async function mintKey(gw: TestGateway, body: Record<string, unknown>, auth?: string): Promise<IssuedTestKey> {
  const res = await gw.request('/v1/auth/api-keys', { method: 'POST', json: body, auth });
  if (res.status !== 201) throw new Error(`key issue failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as IssuedTestKey;
}

/** Issues a key with the given permissions through the real endpoint; its secret. */
export async function issueKey(gw: TestGateway, permissions: string[], extra: Record<string, unknown> = {}): Promise<string> {
  return (await mintKey(gw, { name: `test ${permissions.join(',')}`, permissions, ...extra })).key;
}
