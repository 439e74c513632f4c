/**
 * Three real gateway processes (the built dist/) on one fresh PostgreSQL database and one Redis
 * database: what one instance does, the others see. Run by jest.multi.config.js, which refuses to
 * start without TEST_DATABASE_URL and TEST_REDIS_URL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';
import WebSocket from 'ws';
import { tallyDrift } from '../helpers/tally';

const ROOT = path.resolve(__dirname, '../..');
const ADMIN_KEY = 'multi-admin-key-0123456789abcdef';
const RATE_LIMIT = 30;
/** A Redis database of this suite's own, flushed before and after (TEST_REDIS_DB overrides). */
const REDIS_DB = Number(process.env.TEST_REDIS_DB ?? 13);

interface Proc {
  name: string;
  url: string;
  child: ChildProcess;
  output: string[];
}

const summary: { check: string; expected: string; observed: string }[] = [];
const record = (check: string, expected: string | number, observed: string | number) =>
  summary.push({ check, expected: String(expected), observed: String(observed) });

const pgBase = process.env.TEST_DATABASE_URL!;
const dbName = `gw_multi_${randomBytes(5).toString('hex')}`;
const databaseUrl = (() => {
  const u = new URL(pgBase);
  u.pathname = `/${dbName}`;
  return u.toString();
})();
const redisUrl = (() => {
  const u = new URL(process.env.TEST_REDIS_URL!);
  u.pathname = `/${REDIS_DB}`;
  return u.toString();
})();

let gateways: Proc[] = [];
let workers: Proc[] = [];
const dataDirs: string[] = [];

async function pg<T = any>(sql: string, params: unknown[] = [], url = databaseUrl): Promise<T[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}

async function flushRedis() {
  const r = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
  try {
    await r.flushdb();
  } finally {
    r.disconnect();
  }
}

/** Starts a node process and resolves once it prints `ready` (the line matched by `readyLine`). */
function startProcess(name: string, args: string[], env: Record<string, string>, readyLine: RegExp): Promise<Proc> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start in 60 s:\n${output.join('')}`)), 60_000);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output.push(text);
      const m = readyLine.exec(output.join(''));
      if (m) {
        clearTimeout(timer);
        resolve({ name, url: m[1] ?? '', child, output });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => output.push(c.toString()));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}) before it was ready:\n${output.join('')}`));
    });
  });
}

function startGatewayProcess(name: string): Promise<Proc> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `gw-multi-${name}-`));
  dataDirs.push(dataDir); // one each: nothing may rely on a shared filesystem
  return startProcess(
    name,
    ['dist/gateway/main.js'],
    {
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      ADMIN_API_KEY: ADMIN_KEY,
      MOCK_LATENCY_MS: '300',
      API_RATE_LIMIT: String(RATE_LIMIT),
      TRUST_PROXY: 'loopback',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'test',
      // Live channels re-read their keys only hourly here: a socket closed on another instance's
      // revocation within the test can only have been told by the event through Redis.
      PRINCIPAL_RECHECK_MS: '3600000',
    },
    /Gateway ready at (http:\/\/\S+?) /,
  );
}

async function stopProcess(p: Proc, signal: NodeJS.Signals = 'SIGTERM') {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill(signal);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 15_000)))]);
  clearTimeout(timer);
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
}

/** A request as one client: `clientIp` is what a load balancer would forward (the gateways trust loopback). */
function call(gw: Proc, pathname: string, clientIp: string, init: { method?: string; json?: unknown } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${ADMIN_KEY}`, 'x-forwarded-for': clientIp };
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  return fetch(gw.url + pathname, {
    method: init.method ?? (init.json !== undefined ? 'POST' : 'GET'),
    headers,
    body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
  });
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  await pg(`create database ${dbName}`, [], pgBase);
  await flushRedis();
  // All three at once, as an orchestrator would: migrations and bootstrap must not race.
  gateways = await Promise.all(['gw1', 'gw2', 'gw3'].map(startGatewayProcess));
}, 120_000);

afterAll(async () => {
  await Promise.all([...gateways, ...workers].map((p) => stopProcess(p)));
  // Each process's own output, for when a check above fails.
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-multi-logs-'));
  for (const p of [...gateways, ...workers]) fs.writeFileSync(path.join(logDir, `${p.name}.log`), p.output.join(''));
  console.log(`process output: ${logDir}`);
  await pg(`drop database if exists ${dbName} with (force)`, [], pgBase).catch(() => undefined);
  await flushRedis().catch(() => undefined);
  for (const d of dataDirs) fs.rmSync(d, { recursive: true, force: true });
  const width = [0, 1, 2].map((i) => Math.max(...[['check', 'expected', 'observed'][i], ...summary.map((r) => Object.values(r)[i])].map((s) => s.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(width[i])).join(' | ');
  console.log(
    [
      'Multi-instance summary (3 gateways, one PostgreSQL, one Redis)',
      line(['check', 'expected', 'observed']),
      width.map((w) => '-'.repeat(w)).join('-|-'),
      ...summary.map((r) => line([r.check, r.expected, r.observed])),
    ].join('\n'),
  );
}, 60_000);

test('all three instances started together on one fresh database and migrated it once', async () => {
  const migrations = await pg<{ n: string }>('select count(*)::int as n from mikro_orm_migrations');
  const names = await pg<{ name: string }>('select name from mikro_orm_migrations');
  expect(new Set(names.map((r) => r.name)).size).toBe(names.length);
  record('gateways started concurrently', 3, gateways.length);
  record('migration rows (no duplicates)', names.length, Number(migrations[0].n));
  for (const gw of gateways) {
    const res = await call(gw, '/api/v1/health/live', '198.51.100.1');
    expect(res.status).toBe(200);
  }
});

describe('events cross instances through Redis', () => {
  test('deleting cached audio on one instance drops it from the hot tier of the others', async () => {
    const ip = '198.51.100.10';
    const [gw1, gw2, gw3] = gateways;
    const gen = await call(gw1, '/api/v1/generate', ip, { json: { text: `invalidation ${randomBytes(6).toString('hex')}` } });
    expect(gen.status).toBe(200);
    const { hash } = (await gen.json()) as { hash: string };
    // Warm every instance's memory tier (the second read of each is served from memory).
    for (const gw of [gw1, gw3]) {
      await (await call(gw, `/api/v1/audio/${hash}`, ip)).arrayBuffer();
      const warm = await call(gw, `/api/v1/audio/${hash}`, ip);
      await warm.arrayBuffer();
      expect(warm.headers.get('x-cached-tier')).toBe('memory');
    }
    const del = await call(gw2, `/api/v1/cache/${hash}`, ip, { method: 'DELETE' });
    expect(del.status).toBe(200);
    let seen = 0;
    let probes = 0;
    const deletedAt = Date.now();
    for (const gw of [gw1, gw3]) {
      const status = await waitFor(`${gw.name} to forget ${hash}`, async () => {
        // Each probe as another client, so polling never runs into the per-IP limit.
        const res = await call(gw, `/api/v1/audio/${hash}`, `198.51.100.${100 + (probes++ % 100)}`);
        await res.arrayBuffer();
        return res.status === 404 ? res.status : undefined;
      });
      if (status === 404) seen++;
    }
    record('a. cache invalidation from gw2 seen by gw1+gw3', 2, seen);
    record('a. ms until both forgot it', '< 5000', Date.now() - deletedAt);
    expect(seen).toBe(2);
  });

  test('a dashboard WebSocket client on instance 1 receives a change made on instance 2', async () => {
    const [gw1, gw2] = gateways;
    const ws = new WebSocket(`${gw1.url.replace(/^http/, 'ws')}/v1/dashboard/ws?access_token=${ADMIN_KEY}`);
    const received: any[] = [];
    ws.on('message', (m) => {
      try {
        received.push(JSON.parse(m.toString()));
      } catch {
        /* not JSON: not an event */
      }
    });
    try {
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
        ws.once('unexpected-response', (_req, res) => reject(new Error(`dashboard WebSocket upgrade refused: ${res.statusCode}`)));
      });
      ws.send(JSON.stringify({ type: 'subscribe', events: ['requirement_updated'] }));
      await new Promise((r) => setTimeout(r, 300)); // the subscription is registered before the change
      const changes = 3;
      for (let i = 0; i < changes; i++) {
        const res = await call(gw2, '/v1/requirements', '198.51.100.11', { json: { title: `multi-instance ${i}`, framework: 'gdpr' } });
        expect(res.status).toBe(201);
      }
      const events = await waitFor('requirement events on gw1', async () => {
        const got = received.filter((m) => m?.type === 'requirement_updated');
        return got.length >= changes ? got : undefined;
      });
      await new Promise((r) => setTimeout(r, 300)); // late duplicates would show up here
      const all = received.filter((m) => m?.type === 'requirement_updated');
      record('a. requirement_updated events on gw1 (made on gw2)', changes, all.length);
      expect(all).toHaveLength(changes);
      expect(events.length).toBe(changes);
    } catch (err) {
      record('a. requirement_updated events on gw1 (made on gw2)', 3, `failed: ${(err as Error).message}`);
      throw err;
    } finally {
      ws.terminate();
    }
  });
});

test('h. a key revoked on instance 1 (by cascade from its issuer) loses its dashboard socket on instance 2 and REST on instance 3', async () => {
  const [gw1, gw2, gw3] = gateways;
  const mint = async (gw: Proc, permissions: string[], auth = ADMIN_KEY) => {
    const res = await fetch(`${gw.url}/v1/auth/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.80' },
      body: JSON.stringify({ name: 'multi revocation', permissions }),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string; key: string };
  };
  const parent = await mint(gw1, ['manage:api-keys', 'read:dashboard']);
  const child = await mint(gw1, ['read:dashboard'], parent.key);
  const dashboardMetrics = (gw: Proc) =>
    fetch(`${gw.url}/v1/dashboard/metrics`, { headers: { authorization: `Bearer ${child.key}`, 'x-forwarded-for': '198.51.100.81' } });
  expect((await dashboardMetrics(gw3)).status).toBe(200); // gw3 now holds the key in its cache

  const ws = new WebSocket(`${gw2.url.replace(/^http/, 'ws')}/v1/dashboard/ws`, { headers: { authorization: `Bearer ${child.key}` } });
  const messages: any[] = [];
  ws.on('message', (m) => messages.push(JSON.parse(m.toString())));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  try {
    const revokedAt = Date.now();
    const del = await call(gw1, `/v1/auth/api-keys/${parent.id}`, '198.51.100.82', { method: 'DELETE' });
    expect(del.status).toBe(200);
    const close = await closed;
    record('h. dashboard socket on gw2 of a child revoked on gw1 (cascade)', 'closed 4401', `closed ${close.code} after ${Date.now() - revokedAt} ms`);
    expect(close).toEqual({ code: 4401, reason: 'The API key was revoked' });
    expect(messages.at(-1)).toMatchObject({ type: 'error', data: { code: 'AUTHENTICATION_ERROR' } });
    // REST on gw3 refuses it within the 5 s of its key cache; the event clears that cache at once.
    const refused = await waitFor('gw3 to refuse the revoked child', async () => ((await dashboardMetrics(gw3)).status === 401 ? true : undefined), 5000);
    record('h. REST on gw3 refuses the revoked child', '401 within 5 s', `401 after ${Date.now() - revokedAt} ms`);
    expect(refused).toBe(true);
  } finally {
    ws.terminate();
  }
});

test('b. the TTS rate limit is shared: 40 requests round-robin behind a balancer, 30 pass', async () => {
  // A minimal round-robin load balancer that forwards the client address, as a real one would.
  const served = new Map<string, number>();
  let next = 0;
  const balancer = http.createServer((req, res) => {
    const gw = gateways[next++ % gateways.length];
    served.set(gw.name, (served.get(gw.name) ?? 0) + 1);
    const target = new URL(req.url ?? '/', gw.url);
    const upstream = http.request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host, 'x-forwarded-for': req.socket.remoteAddress ?? '' } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => balancer.listen(0, '127.0.0.1', () => r()));
  const lb = `http://127.0.0.1:${(balancer.address() as import('node:net').AddressInfo).port}`;
  const statuses: number[] = [];
  try {
    for (let i = 0; i < 40; i++) {
      const res = await fetch(`${lb}/api/v1/voices`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
  } finally {
    await new Promise((r) => balancer.close(r));
  }
  const ok = statuses.filter((s) => s === 200).length;
  const limited = statuses.filter((s) => s === 429).length;
  record('b. 200 of 40 (via balancer)', RATE_LIMIT, ok);
  record('b. 429 of 40 (via balancer)', 40 - RATE_LIMIT, limited);
  record('b. requests per instance', '13/13/14', gateways.map((g) => served.get(g.name) ?? 0).join('/'));
  expect(ok).toBe(RATE_LIMIT);
  expect(limited).toBe(40 - RATE_LIMIT);
  expect(statuses.slice(0, RATE_LIMIT).every((s) => s === 200)).toBe(true);
});

test('c. audio generated on instance 1 is served, byte for byte, by instances 2 and 3', async () => {
  const ip = '198.51.100.20';
  const [gw1, gw2, gw3] = gateways;
  const gen = await call(gw1, '/api/v1/generate', ip, { json: { text: `shared bytes ${randomBytes(6).toString('hex')}`, options: { format: 'mp3' } } });
  expect(gen.status).toBe(200);
  const { hash } = (await gen.json()) as { hash: string };
  const digests: string[] = [];
  for (const gw of [gw1, gw2, gw3]) {
    const res = await call(gw, `/api/v1/audio/${hash}`, ip);
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.length).toBeGreaterThan(100);
    digests.push(sha256(bytes));
  }
  record('c. distinct sha256 over gw1/gw2/gw3', 1, new Set(digests).size);
  expect(new Set(digests).size).toBe(1);
});

test('d. identical generations at the same moment on two instances call the provider once', async () => {
  const ip = '198.51.100.30';
  const [gw1, gw2] = gateways;
  const mockRequests = async () => ((await (await call(gw1, '/api/v1/stats/providers', ip)).json()) as any).stats.mock.requests as number;
  const before = await mockRequests();
  const body = { text: `single flight across instances ${randomBytes(6).toString('hex')}` };
  const [a, b] = await Promise.all([call(gw1, '/api/v1/generate', ip, { json: body }), call(gw2, '/api/v1/generate', ip, { json: body })]);
  expect([a.status, b.status]).toEqual([200, 200]);
  const [ra, rb] = (await Promise.all([a.json(), b.json()])) as { hash: string }[];
  const after = await mockRequests();
  record('d. provider calls for 2 simultaneous identical requests', 1, after - before);
  record('d. same hash on gw1 and gw2', 'true', String(ra.hash === rb.hash));
  expect(ra.hash).toBe(rb.hash);
  expect(after - before).toBe(1);
});

test('e. job queue: every job completes exactly once although a worker is killed mid-job', async () => {
  // Workers are separate processes running the real JobQueue (dist/) with a short lease, so a
  // takeover after SIGKILL happens within the test; the gateways do not handle this job type.
  await pg(
    'create table multi_job_runs (job_id varchar(40) not null, worker varchar(20) not null, attempt int not null, phase varchar(5) not null, at timestamptz not null default clock_timestamp())',
  );
  const jobCount = 12;
  for (let i = 0; i < jobCount; i++) {
    await pg(
      `insert into jobs (id, type, payload, status, attempts, max_attempts, run_at, created_at) values ($1, 'multi.test', $2, 'queued', 0, 5, now(), now())`,
      [`job_multi_${i}`, JSON.stringify({ i })],
    );
  }
  workers = await Promise.all(
    ['w1', 'w2', 'w3'].map((id) =>
      startProcess(
        id,
        [path.join('tests/multi/job-worker.js')],
        { DATABASE_URL: databaseUrl, WORKER_ID: id, JOB_MS: '1500', LEASE_MS: '2000' },
        /worker \S+ ready()/,
      ),
    ),
  );
  // Kill w1 while it holds jobs.
  await waitFor('w1 to start a job', async () => {
    const rows = await pg(`select 1 from multi_job_runs where worker = 'w1' and phase = 'start'`);
    return rows.length ? true : undefined;
  });
  await stopProcess(workers[0], 'SIGKILL');
  const killedRuns = await pg<{ job_id: string }>(
    `select job_id from multi_job_runs r where worker = 'w1' and phase = 'start' and not exists (select 1 from multi_job_runs e where e.job_id = r.job_id and e.worker = 'w1' and e.phase = 'end')`,
  );
  await waitFor(
    'every job to finish',
    async () => {
      const [{ n }] = await pg<{ n: number }>(`select count(*)::int as n from jobs where type = 'multi.test' and status = 'done'`);
      return n === jobCount ? n : undefined;
    },
    30_000,
  );
  const jobs = await pg<{ id: string; status: string; attempts: number; locked_by: string | null }>(
    `select id, status, attempts, locked_by from jobs where type = 'multi.test'`,
  );
  const ends = await pg<{ job_id: string; n: number }>(`select job_id, count(*)::int as n from multi_job_runs where phase = 'end' group by job_id`);
  const takenOver = jobs.filter((j) => killedRuns.some((k) => k.job_id === j.id));
  record('e. jobs done', jobCount, jobs.filter((j) => j.status === 'done').length);
  record('e. completed runs per job (min..max)', '1..1', `${Math.min(...ends.map((e) => e.n))}..${Math.max(...ends.map((e) => e.n))}`);
  record('e. jobs killed mid-run on w1, taken over', '>=1', takenOver.length);
  record('e. attempts of taken-over jobs', '2 each', takenOver.map((j) => j.attempts).join(','));
  record('e. leases left behind (locked_by not null)', 0, jobs.filter((j) => j.locked_by !== null).length);
  expect(jobs.every((j) => j.status === 'done')).toBe(true);
  expect(ends).toHaveLength(jobCount);
  expect(ends.every((e) => e.n === 1)).toBe(true);
  expect(takenOver.length).toBeGreaterThanOrEqual(1);
  expect(takenOver.every((j) => j.attempts === 2)).toBe(true);
  const finishers = await pg<{ worker: string }>(`select distinct worker from multi_job_runs where phase = 'end' and job_id = any($1)`, [
    takenOver.map((j) => j.id),
  ]);
  expect(finishers.map((f) => f.worker)).not.toContain('w1');
});

test('f. audit trail: writes on three instances at once are sealed into one unbroken chain', async () => {
  const writes = 60;
  const results = await Promise.all(
    Array.from({ length: writes }, (_, i) =>
      call(gateways[i % 3], '/v1/requirements', `198.51.100.${60 + (i % 3)}`, { json: { title: `Multi audit ${i}`, framework: 'soc2' } }),
    ),
  );
  expect(results.every((r) => r.status === 201)).toBe(true);
  const verification = await waitFor(
    'every trail row to be sealed',
    async () => {
      const v: any = await (await call(gateways[1], '/v1/audit-trail/verify', '198.51.100.70')).json();
      return v.rows.unsealed === 0 && v.rows.total >= writes ? v : undefined;
    },
    20_000,
  );
  const seqs = (await pg<{ seq: string }>('select seq from audit_trail order by seq')).map((r) => Number(r.seq));
  record('f. trail rows sealed / written', verification.rows.total, verification.rows.sealed);
  record('f. chain intact, seq 1..n without gaps', 'true', String(verification.intact && seqs.every((s, i) => s === i + 1)));
  expect(verification).toMatchObject({ intact: true, problems: 0 });
  expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
}, 60_000);

test('g. scores: concurrent writes on three instances leave the tally equal to a full recount', async () => {
  const frameworks = ['iso13485', 'fda21cfr11', 'gdpr', 'soc2'];
  const created = await Promise.all(
    Array.from({ length: 60 }, (_, i) =>
      call(gateways[i % 3], '/v1/requirements', `198.51.100.${80 + (i % 3)}`, {
        json: { title: `Multi score ${i}: access to records is logged`, framework: frameworks[i % 4], priority: ['critical', 'high', 'medium', 'low'][i % 4] },
      }),
    ),
  );
  expect(created.every((r) => r.status === 201)).toBe(true);
  const ids: string[] = await Promise.all(created.map(async (r) => ((await r.json()) as any).id));
  // Status changes, deletions and findings, all at once, spread over the instances.
  const changes = await Promise.all([
    ...ids.slice(0, 30).map((id, i) =>
      call(gateways[(i + 1) % 3], `/v1/requirements/${id}`, `198.51.100.${83 + (i % 3)}`, {
        method: 'PUT',
        json: { status: i % 2 ? 'completed' : 'in-progress' },
      }),
    ),
    ...ids.slice(30, 40).map((id, i) => call(gateways[(i + 2) % 3], `/api/requirements/${id}`, `198.51.100.${86 + (i % 3)}`, { method: 'DELETE' })),
    ...ids.slice(40, 60).map((id, i) =>
      call(gateways[i % 3], '/v1/audits/findings', `198.51.100.${89 + (i % 3)}`, {
        json: { title: `Multi finding ${i}`, framework: frameworks[(40 + i) % 4], severity: ['low', 'medium', 'high', 'critical'][i % 4], requirementId: id },
      }),
    ),
  ]);
  expect(changes.every((r) => r.status < 300)).toBe(true);
  const { drift, buckets } = await tallyDrift((sql) => pg(sql));
  record('g. tally buckets differing from a full recount', 0, drift.length);
  expect(buckets).toBeGreaterThan(0);
  expect(drift).toEqual([]);
  // Every instance reports the same scores.
  const scores = await Promise.all(gateways.map(async (g, i) => (await (await call(g, '/v1/compliance/status', `198.51.100.${95 + i}`)).json()) as any));
  expect(scores[1]).toEqual(scores[0]);
  expect(scores[2]).toEqual(scores[0]);
}, 60_000);
