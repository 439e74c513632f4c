/**
 * `npm run bench`: starts the gateway in production mode (embedded PGlite in a temp DATA_DIR) and,
 * in the same run, its baselines (bare node:http sending the same bytes; bare node:http + pg running
 * the same SQL; an express + @apollo/server peer), drives each with autocannon in child processes of
 * its own, in alternating rounds, and checks every budget as a ratio to its baseline with both
 * sides' CPU per request. Exit code 1 when a budget is missed. bench/RESULTS.md says how to read it.
 *
 * Environment: BENCH_CASES (or BENCH_ONLY; comma list of case ids: audio, generate, speech, read-hit,
 * graphql, create, lists, filtered, heavy, npm-start, startup, console, progressive, first-audio,
 * subscribers, mixed, fair-use; opt-in: data, writes, growth, postgres, postgres-growth),
 * BENCH_SECONDS (4) per measured run, BENCH_ROUNDS (3), BENCH_WARMUP_SECONDS (1),
 * BENCH_CONNECTIONS (50), BENCH_LOAD_PROCS (2 autocannon processes), BENCH_MIXED_REQUESTS (100000),
 * BENCH_SUBSCRIBERS (1000), BENCH_FILTER_LEVELS (1000,10000,100000), BENCH_REPORT_ROWS (10000),
 * BENCH_DB_CORES (8, the scale-out table's PostgreSQL), BENCH_DATABASE_URL (a PostgreSQL server; by
 * default 127.0.0.1:5432 when it answers; each side gets a fresh database of its own, dropped after),
 * BENCH_GROWTH / BENCH_GROWTH_ROUNDS (the opt-in growth case), BENCH_CPU_PROF=<dir>.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCH_SECONDS, CONNECTIONS, LOAD_WORKERS, load } from './lib/load';
import { measurePair, WARMUP_SECONDS } from './lib/pair';
import { killAllChildren, sqlCount, startChild, stopChild, treeRssMb, type Child } from './lib/proc';
import { Report } from './lib/report';
import { runProgressiveCase } from './cases/progressive';
import { runSubscribersCase } from './cases/subscribers';
import { runFairUseCase } from './cases/fair-use';
import { benchGatewayEnv, childEnv } from './lib/gateway-env';
import { runFirstAudioCase } from './cases/first-audio';
import { GRAPHQL_QUERY, seedCompliance } from './cases/compliance-seed';
import { measureConsole } from './cases/console-size';
import { runWritesCase } from './cases/writes';
import { Client } from 'pg';
import { runAudioCase, runGenerateCase, runReadHitCase, type SeamDeps } from './cases/seam';
import { printScaleOut, runCreateCase, runFilteredGrowthCase, runListsCase, type DatabaseDeps, type ScaleFigures } from './cases/database';
import { runHeavyCase } from './cases/heavy';
import { runNpmStartCase } from './cases/npm-start';
import { runSpeechCase } from './cases/speech';
import {
  databaseWork,
  freshPostgresDatabase,
  runDataPathsCase,
  startUncachedGateway,
  runGrowthCase,
  runTwoInstancesCase,
  type DataPathsDeps,
} from './cases/data-paths';

const MIXED_REQUESTS = Number(process.env.BENCH_MIXED_REQUESTS ?? 100_000);
/**
 * BENCH_CASES (or BENCH_ONLY): a comma list of case ids. Without it, every case but the long,
 * superseded or opt-in ones (OPT_IN), so that `npm run bench` ends within about 15 minutes.
 */
const CASES = process.env.BENCH_CASES ?? process.env.BENCH_ONLY;
const ONLY = CASES ? new Set(CASES.split(',').map((s) => s.trim())) : null;
const OPT_IN = new Set(['data', 'writes', 'growth', 'postgres', 'postgres-growth']);
const wants = (id: string) => (ONLY ? ONLY.has(id) : !OPT_IN.has(id));

const DIST = path.resolve(__dirname, '..');
const GATEWAY_MAIN = path.join(DIST, 'gateway', 'main.js');
const BARE_HTTP = path.join(__dirname, 'baseline', 'bare-http.js');
const GRAPHQL_PLAIN = path.join(__dirname, 'baseline', 'graphql-plain.js');
const BARE_SQL = path.join(__dirname, 'baseline', 'bare-sql.js');

/** The PostgreSQL on 127.0.0.1:5432 when one answers (BENCH_DATABASE_URL unset); else undefined. */
async function defaultPostgres(): Promise<string | undefined> {
  const url = 'postgresql://postgres@127.0.0.1:5432/postgres';
  const c = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.query('select 1');
    return url;
  } catch {
    return undefined;
  } finally {
    await c.end().catch(() => undefined);
  }
}

const ADMIN_KEY = `bench-admin-${randomBytes(12).toString('hex')}`;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-bench-'));
const dataDir = path.join(root, 'data');

const gatewayEnv = () => benchGatewayEnv(dataDir, ADMIN_KEY);

/**
 * The fair-use case's gateway: the default speech budgets (characters, concurrency, queue), request
 * counts still out of the way, clients told apart by X-Forwarded-For as behind a balancer.
 */
const fairUseEnv = () => {
  const { TTS_CHARS_PER_MINUTE: _c, TTS_MAX_CONCURRENT_PER_CLIENT: _p, TTS_MAX_CONCURRENT_GENERATIONS: _g, TTS_ADMISSION_QUEUE: _q, ...env } = gatewayEnv();
  return { ...env, TRUST_PROXY: 'loopback' };
};

/** BENCH_CPU_PROF=<dir>: every server child writes a V8 CPU profile there when it stops (profile first, then fix). */
const PROFILE_ARGS = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(process.env.BENCH_CPU_PROF)] : [];

/**
 * The node options `npm start` gives the gateway (package.json's start script, between `node` and
 * the script): the gateway and the graphql-js baseline run with them, as a user's gateway does.
 */
function startScriptNodeArgs(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.resolve(DIST, '..', 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const words = pkg.scripts.start.split(/\s+/);
  const node = words.indexOf('node');
  const script = words.findIndex((w) => w.endsWith('gateway/main.js'));
  if (node < 0 || script < node) throw new Error(`package.json start script not understood: ${pkg.scripts.start}`);
  return words.slice(node + 1, script);
}
const GATEWAY_ARGS = [...startScriptNodeArgs(), ...PROFILE_ARGS];

const GATEWAY_READY = /Gateway ready at (http:\/\/\S+?) /;
const LISTENING = /LISTENING (http:\/\/\S+)/;

/** Spawns the gateway and measures spawn → first 200 from /api/v1/health/ready. */
async function startGateway(): Promise<{ gw: Child; startupMs: number }> {
  const t0 = performance.now();
  const gw = await startChild('gateway', GATEWAY_MAIN, gatewayEnv(), GATEWAY_READY, 120_000, GATEWAY_ARGS);
  for (;;) {
    const res = await fetch(`${gw.url}/api/v1/health/ready`).catch(() => null);
    if (res?.status === 200) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  return { gw, startupMs: performance.now() - t0 };
}

/**
 * Waits (at most 60 s) until the server answers a liveness probe within 20 ms three times in a
 * row: after a load run it may still be working off queued requests, which would skew the next case.
 */
async function settle(server: Child) {
  const until = Date.now() + 60_000;
  let quick = 0;
  while (quick < 3 && Date.now() < until) {
    const t = performance.now();
    await fetch(`${server.url}/api/v1/health/live`)
      .then((r) => r.arrayBuffer())
      .catch(() => undefined);
    quick = performance.now() - t < 20 ? quick + 1 : 0;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function startBare(file: string, head: [string, string][], turnWrites = false): Promise<Child> {
  const env = childEnv({ BASELINE_FILE: file, BASELINE_HEADERS: JSON.stringify(head), BASELINE_TURN_WRITES: turnWrites ? '1' : '0' });
  return startChild('bare-http', BARE_HTTP, env, LISTENING, 60_000, PROFILE_ARGS);
}

async function json(url: string, init: RequestInit & { json?: unknown } = {}): Promise<any> {
  const res = await fetch(url, {
    ...init,
    method: init.method ?? (init.json !== undefined ? 'POST' : 'GET'),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}`, ...(init.headers as any) },
    body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'POST'} ${url} → ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Generates mock mp3 audio of about `targetBytes`, resizing the text until it is within 10 %. */
async function generateAudioOfSize(gwUrl: string, targetBytes: number) {
  let words = 20;
  for (let attempt = 0; attempt < 6; attempt++) {
    const text = Array.from({ length: words }, (_, i) => `word${i % 97}`).join(' ') + `. Bench ${attempt}.`;
    const body = { text, options: { provider: 'mock', format: 'mp3' } };
    const r = await json(`${gwUrl}/api/v1/generate`, { json: body, headers: { authorization: '' } });
    const size = r.metadata.fileSize as number;
    if (Math.abs(size - targetBytes) / targetBytes <= 0.1) return { body, response: r };
    words = Math.max(1, Math.round((words * targetBytes) / size));
  }
  throw new Error(`could not size the audio to ${targetBytes} bytes`);
}

async function main() {
  const report = new Report({ seconds: BENCH_SECONDS, connections: CONNECTIONS, warmup: WARMUP_SECONDS, workers: LOAD_WORKERS });
  let gw: Child | undefined;
  let baseline: Child | undefined;
  const cleanup = async () => {
    await stopChild(baseline);
    await stopChild(gw);
    fs.rmSync(root, { recursive: true, force: true });
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAllChildren();
      fs.rmSync(root, { recursive: true, force: true });
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }

  try {
    // --- start-up on an empty data directory (creates the database, runs migrations) ---
    const first = await startGateway();
    gw = first.gw;
    report.note(`gateway node options, as npm start gives them: ${GATEWAY_ARGS.join(' ') || 'none'}`);
    report.note(
      `gateway cold start (empty DATA_DIR: a copy of the migrated cluster template the build made, or of the plain one and every migration when there is none) to /api/v1/health/ready: ${first.startupMs.toFixed(0)} ms`,
    );
    if (wants('startup')) report.budget('cold start to /api/v1/health/ready on an empty DATA_DIR', first.startupMs, '<=', 3000, 'ms');
    let gwUrl = gw.url;
    await settle(gw);
    await new Promise((r) => setTimeout(r, 2000));
    const idleRss = treeRssMb(gw.pid);
    report.budget('RSS idle after start, gateway + embedded database (every process it started)', idleRss, '<=', 300, 'MB');

    // --- the web console: bytes a browser downloads for `/` ---
    if (wants('console')) {
      const c = await measureConsole(gwUrl);
      report.note(
        `console assets: ${c.assets.map((a) => `${a.path} ${(a.bytes / 1024).toFixed(1)} KB (${(a.gzipBytes / 1024).toFixed(1)} KB gzipped)`).join(', ')}; all gzipped ${(c.totalGzipBytes / 1024).toFixed(1)} KB`,
      );
      report.budget('web console JavaScript shipped to the browser, gzipped', c.jsGzipBytes / 1024, '<=', 300, 'KB');
    }

    // --- GET /api/v1/audio/{hash} from the hot tier vs bare node:http sending the same bytes ---
    const audio = await generateAudioOfSize(gwUrl, 50 * 1024);
    const audioUrl = `${gwUrl}${audio.response.audioUrl}`;
    const audioRes = await fetch(audioUrl);
    const audioBytes = Buffer.from(await audioRes.arrayBuffer());
    if (audioRes.headers.get('x-cached-tier') !== 'memory') throw new Error(`audio not served from the hot tier: ${audioRes.headers.get('x-cached-tier')}`);
    const audioFile = path.join(root, 'audio.mp3');
    fs.writeFileSync(audioFile, audioBytes);
    const seamDeps: SeamDeps = {
      report,
      adminKey: ADMIN_KEY,
      startBare: (bytes, head, turnWrites) => {
        const file = path.join(root, `bare-${randomBytes(4).toString('hex')}`);
        fs.writeFileSync(file, bytes);
        return startBare(file, head, turnWrites);
      },
      stopBare: (child) => stopChild(child),
    };
    if (wants('audio')) await runAudioCase(seamDeps, gw, audioUrl);
    if (wants('generate')) await runGenerateCase(seamDeps, gw, JSON.stringify(audio.body));
    if (wants('speech')) await runSpeechCase(report, gw, ADMIN_KEY, (audio.body as { text: string }).text);

    // --- GraphQL requirements(limit: 50) with nested framework and findings ---
    const graphqlBody = (limit: number) => JSON.stringify({ query: GRAPHQL_QUERY, variables: { limit } });
    const graphqlPost = {
      method: 'POST' as const,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
      body: graphqlBody(50),
    };
    let complianceSeeded = false;
    if (wants('graphql') || wants('mixed') || wants('data') || wants('read-hit')) {
      try {
        await seedCompliance(gwUrl, ADMIN_KEY, 500);
        complianceSeeded = true;
      } catch (err) {
        report.note(`compliance seed failed, GraphQL case skipped: ${(err as Error).message.slice(0, 300)}`);
      }
    }
    if (wants('read-hit') && complianceSeeded) await runReadHitCase(seamDeps, gw);
    if (wants('graphql') && complianceSeeded) {
      const probe = await json(`${gwUrl}/graphql`, { json: { query: GRAPHQL_QUERY, variables: { limit: 50 } } });
      if (probe.errors || probe.data?.requirements?.data?.length !== 50) throw new Error(`GraphQL probe failed: ${JSON.stringify(probe).slice(0, 500)}`);

      // SQL statements per request, counted on an otherwise idle server; the least over ten
      // requests (background jobs may add a statement now and then, and on a busy machine a 300-row
      // request lasts long enough to catch one of their polls more often than not). Computed: each request has a
      // variables value of its own (an unused `nonce`), so none is in the response cache. Cached:
      // the same request repeated.
      const computed: Record<number, number> = {};
      const cached: Record<number, number> = {};
      const sqlOf = async (variables: Record<string, unknown>, limit: number) => {
        const before = await sqlCount(gw!);
        const r = await json(`${gwUrl}/graphql`, { json: { query: GRAPHQL_QUERY, variables } });
        if (r.errors) throw new Error(JSON.stringify(r.errors));
        if (r.data.requirements.data.length !== limit) throw new Error(`asked for ${limit} rows, got ${r.data.requirements.data.length}`);
        return (await sqlCount(gw!)) - before;
      };
      for (const limit of [5, 50, 200]) {
        computed[limit] = cached[limit] = Infinity;
        for (let i = 0; i < 10; i++) computed[limit] = Math.min(computed[limit], await sqlOf({ limit, nonce: `${limit}-${i}` }, limit));
        for (let i = 0; i < 10; i++) cached[limit] = Math.min(cached[limit], await sqlOf({ limit }, limit));
      }
      const counts = Object.values(computed);
      const constant = counts.every((c) => c === counts[0]) && Object.values(cached).every((c) => c === Object.values(cached)[0]);
      report.budget(
        `SQL statements per GraphQL request, computed (5/50/200 rows: ${counts.join('/')}; from the response cache: ${Object.values(cached).join('/')})`,
        constant ? Math.max(...counts) : Infinity,
        '<=',
        4,
        'count',
      );
      // The baseline gets a copy of the seeded database (an embedded database is one process's), so
      // both can run side by side and be measured in alternating rounds: the gateway stops, the data
      // directory is copied, both start.
      await stopChild(gw);
      gw = undefined;
      const baselineDir = path.join(root, 'baseline-data');
      fs.cpSync(dataDir, baselineDir, { recursive: true });
      gw = (await startGateway()).gw;
      gwUrl = gw.url;
      baseline = await startChild('graphql-js + node:http', GRAPHQL_PLAIN, { ...gatewayEnv(), DATA_DIR: baselineDir }, LISTENING, 120_000, GATEWAY_ARGS);
      const probe2 = await json(`${baseline.url}/graphql`, { json: { query: GRAPHQL_QUERY, variables: { limit: 50 } } });
      if (probe2.errors || probe2.data?.requirements?.data?.length !== 50)
        throw new Error(`baseline GraphQL probe failed: ${JSON.stringify(probe2).slice(0, 500)}`);
      const pair = await measurePair(
        report,
        'GraphQL requirements(limit: 50) + framework + findings',
        { server: gw, spec: { url: `${gwUrl}/graphql`, ...graphqlPost } },
        { server: baseline, spec: { url: `${baseline.url}/graphql`, ...graphqlPost } },
      );
      // The same, with every request's variables unique: nothing from the response cache, so this
      // compares the compiled executor and transport alone: the budget.
      const uniqueBody = JSON.stringify({ query: GRAPHQL_QUERY, variables: { limit: 50, nonce: '[<id>]' } });
      const computedPair = await measurePair(
        report,
        'GraphQL, every request computed (unique variables, no cache hits)',
        { server: gw, spec: { url: `${gwUrl}/graphql`, ...graphqlPost, body: uniqueBody, idReplacement: true } },
        { server: baseline, spec: { url: `${baseline.url}/graphql`, ...graphqlPost, body: uniqueBody, idReplacement: true } },
      );
      await stopChild(baseline);
      baseline = undefined;
      report.note(`GraphQL req/s per round, gateway/graphql-js: ${pair.rounds}`);
      report.note(
        `GraphQL without cache hits, req/s per round, gateway/graphql-js: ${computedPair.rounds} (median ratio ${computedPair.ratio.toFixed(2)}, CPU/req ${computedPair.cpuRatio.toFixed(2)}x)`,
      );
      // Like for like (issue #14): computation against computation; the cached case is information,
      // because the baseline has no cache (the cache-hit budget against bare node:http is in the data case).
      report.note(`GraphQL repeated query (response cache) vs graphql-js computing it: ${pair.ratio.toFixed(2)} (not a like-for-like figure)`);
      report.budget(
        'GraphQL uncached req/s vs graphql-js executing the same query on the same data (median of rounds)',
        computedPair.ratio,
        '>=',
        1.0,
        'ratio',
        [computedPair.gateway, computedPair.baseline],
      );
    }

    // --- the database paths: list reads and writes, growth, PostgreSQL ---
    const deps: DataPathsDeps = {
      report,
      adminKey: ADMIN_KEY,
      seconds: BENCH_SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      startGateway: async (env, name) => {
        const dir = fs.mkdtempSync(path.join(root, 'data-'));
        const child = await startChild(name, GATEWAY_MAIN, { ...gatewayEnv(), DATA_DIR: dir, ...env }, GATEWAY_READY, 120_000, GATEWAY_ARGS);
        for (;;) {
          const res = await fetch(`${child.url}/api/v1/health/ready`).catch(() => null);
          if (res?.status === 200) break;
          await new Promise((r) => setTimeout(r, 10));
        }
        return child;
      },
      stopGateway: (child) => stopChild(child),
      startBare: (bytes, head) => {
        const file = path.join(root, `bare-${randomBytes(4).toString('hex')}`);
        fs.writeFileSync(file, bytes);
        return startBare(file, head);
      },
      stopBare: (child) => stopChild(child),
    };
    // --- #36: the database paths against bare node:http + pg and an Apollo peer ---
    const pgServer = process.env.BENCH_DATABASE_URL ?? (await defaultPostgres());
    const dbDeps: DatabaseDeps = {
      report,
      adminKey: ADMIN_KEY,
      startGateway: deps.startGateway,
      startSql: (env, name) =>
        startChild(name, BARE_SQL, childEnv({ BASELINE_DATA_DIR: fs.mkdtempSync(path.join(root, 'bare-sql-')), ...env }), LISTENING, 120_000, PROFILE_ARGS),
      stop: (c) => stopChild(c),
      freshDatabase: pgServer ? () => freshPostgresDatabase(pgServer) : undefined,
    };
    const scale: ScaleFigures = {};
    if (wants('create')) {
      await runCreateCase(dbDeps, 'embedded', scale);
      await runCreateCase(dbDeps, 'PostgreSQL', scale);
    }
    if (wants('lists')) {
      await runListsCase(dbDeps, 'embedded', scale);
      if (pgServer) await runListsCase(dbDeps, 'PostgreSQL', scale);
    }
    if (wants('create') && wants('lists')) printScaleOut(report, scale);
    if (wants('filtered')) await runFilteredGrowthCase(dbDeps);
    if (wants('heavy')) {
      const heavyGw = await deps.startGateway({}, 'gateway (report)');
      try {
        await runHeavyCase(report, heavyGw, ADMIN_KEY);
      } finally {
        await stopChild(heavyGw);
      }
    }
    if (wants('npm-start')) {
      const repoRoot = path.resolve(DIST, '..');
      await runNpmStartCase(
        report,
        repoRoot,
        (dir) => ({ ...gatewayEnv(), DATA_DIR: dir }),
        root,
        BARE_HTTP,
        childEnv({ BASELINE_FILE: path.join(repoRoot, 'package.json') }),
      );
    }

    if (wants('writes')) {
      await runWritesCase(deps, {}, 'embedded');
      if (process.env.BENCH_DATABASE_URL) {
        const pg = await freshPostgresDatabase(process.env.BENCH_DATABASE_URL);
        try {
          await runWritesCase(deps, { DATABASE_URL: pg.url }, 'PostgreSQL');
        } finally {
          await pg.drop();
        }
      }
    }
    if (wants('data') && complianceSeeded) {
      await settle(gw);
      const computing = await startUncachedGateway(deps, {}, 'gateway (no kept answers)', 500);
      try {
        await runDataPathsCase(deps, gw, computing, 'embedded');
      } finally {
        await stopChild(computing);
      }
    }
    // Each level's gateway gets a fresh DATA_DIR from startGateway, so its own embedded database.
    if (wants('growth')) await runGrowthCase(deps, async () => ({ env: {}, drop: async () => {} }), 'embedded');
    if (wants('postgres') && pgServer) {
      const pg = await freshPostgresDatabase(pgServer);
      try {
        const pgGw = await deps.startGateway({ DATABASE_URL: pg.url }, 'gateway (PostgreSQL)');
        const pg2 = await freshPostgresDatabase(pgServer);
        try {
          await seedCompliance(pgGw.url, ADMIN_KEY, 500);
          const computing = await startUncachedGateway(deps, { DATABASE_URL: pg2.url }, 'gateway (PostgreSQL, no kept answers)', 500);
          try {
            await runDataPathsCase(deps, pgGw, computing, 'PostgreSQL');
          } finally {
            await stopChild(computing);
          }
        } finally {
          await stopChild(pgGw);
          await pg2.drop();
        }
        await runTwoInstancesCase(deps, pg.url);
      } finally {
        await pg.drop();
      }
    }
    if ((wants('postgres') || wants('postgres-growth')) && pgServer) {
      await runGrowthCase(
        deps,
        async () => {
          const pg = await freshPostgresDatabase(pgServer);
          return { env: { DATABASE_URL: pg.url }, database: pg.name, work: () => databaseWork(pgServer, pg.name), drop: pg.drop };
        },
        'PostgreSQL',
      );
    } else if (wants('postgres') || wants('postgres-growth')) {
      report.note('PostgreSQL cases not run: set BENCH_DATABASE_URL (for example postgresql://postgres@127.0.0.1:5432/postgres)');
    }

    // --- progressive generation of 20,000 characters ---
    await settle(gw);
    if (wants('progressive')) await runProgressiveCase(report, gwUrl);

    // --- 1,000 idle subscribers, 100 events ---
    await settle(gw);
    if (wants('subscribers')) await runSubscribersCase(report, gw, ADMIN_KEY, Number(process.env.BENCH_SUBSCRIBERS ?? 1000));

    // --- 100,000 mixed requests: RSS growth ---
    await settle(gw);
    if (wants('mixed')) {
      const requests: any[] = [
        { method: 'GET', path: new URL(audioUrl).pathname },
        { method: 'POST', path: '/api/v1/generate', headers: { 'content-type': 'application/json' }, body: JSON.stringify(audio.body) },
        { method: 'GET', path: '/api/v1/health/ready' },
        { method: 'GET', path: '/api/v1/voices' },
      ];
      if (complianceSeeded) {
        requests.push({ method: 'POST', path: '/graphql', headers: graphqlPost.headers, body: graphqlBody(20) });
        requests.push({ method: 'GET', path: '/v1/requirements?limit=20', headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      }
      await load({ url: gwUrl, requests, durationSeconds: WARMUP_SECONDS });
      const rssStart = treeRssMb(gw.pid);
      let peak = rssStart;
      const sampler = setInterval(() => (peak = Math.max(peak, treeRssMb(gw!.pid))), 250);
      const r = await load({ url: gwUrl, requests, amount: MIXED_REQUESTS, serverPid: gw.pid });
      clearInterval(sampler);
      await new Promise((res) => setTimeout(res, 2000)); // let in-flight work settle
      const rssEnd = treeRssMb(gw.pid);
      report.throughput(`mixed (${requests.length} kinds, ${r.requests} requests)`, gw.name, r, rssEnd);
      report.note(
        `mixed: RSS ${rssStart.toFixed(1)} MB after warm-up → ${rssEnd.toFixed(1)} MB at the end (peak ${peak.toFixed(1)} MB); errors ${r.errors}, non-2xx ${r.non2xx}`,
      );
      report.budget(`RSS growth over ${r.requests} mixed requests`, (rssEnd - rssStart) / rssStart, '<=', 0.1, 'percent');
    }

    await stopChild(gw);
    gw = undefined;

    // --- start-up on an existing embedded database (the ordinary restart) ---
    if (wants('startup')) {
      const again = await startGateway();
      gw = again.gw;
      report.budget('start-up to /api/v1/health/ready (existing embedded database)', again.startupMs, '<=', 3000, 'ms');
      report.note(`start-up figures: cold ${first.startupMs.toFixed(0)} ms, restart ${again.startupMs.toFixed(0)} ms`);
    }

    // --- first audio: request → first streamed byte, with the issue's MOCK_LATENCY_MS=100 ---
    if (wants('first-audio')) {
      await stopChild(gw);
      gw = await startChild('gateway (MOCK_LATENCY_MS=100)', GATEWAY_MAIN, { ...gatewayEnv(), MOCK_LATENCY_MS: '100' }, GATEWAY_READY, 120_000, GATEWAY_ARGS);
      await runFirstAudioCase(report, gw.url);
    }

    // --- fair use: a flood of long texts against the default speech budgets ---
    if (wants('fair-use')) {
      await stopChild(gw);
      gw = await startChild('gateway (default speech budgets)', GATEWAY_MAIN, fairUseEnv(), GATEWAY_READY, 120_000, GATEWAY_ARGS);
      await runFairUseCase(report, gw);
    }
  } finally {
    await cleanup();
  }
  report.print();
  process.exitCode = report.failed ? 1 : 0;
}

main().catch((err) => {
  console.error(err);
  killAllChildren();
  fs.rmSync(root, { recursive: true, force: true });
  process.exit(2);
});
