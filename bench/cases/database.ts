/**
 * Issue #36: the database paths against bare node:http + pg doing the same statements
 * (bench/baseline/bare-sql.ts), in alternating rounds, both sides' CPU per request counted (process
 * tree, and on PostgreSQL the backends of each side's own database). Creates on PostgreSQL and on
 * the embedded database; computed lists (no read-model cache) on REST, tRPC and GraphQL, GraphQL also
 * against an express + Apollo peer; a filtered list against an unfiltered one as the table grows;
 * the scale-out table (CPU per write and per read of each component, the ceiling at 8 instances).
 */
import { mapLimit } from '../../domain/util/concurrency';
import type { LoadSpec } from '../lib/load';
import { cpuPerRequest, measurePair, pairBudget, type PairResult } from '../lib/pair';
import { sqlCount, type Child } from '../lib/proc';
import type { Report } from '../lib/report';
import { GRAPHQL_QUERY, seedCompliance } from './compliance-seed';

export interface DatabaseDeps {
  report: Report;
  adminKey: string;
  /** A gateway with a fresh DATA_DIR and `env` (DATABASE_URL for PostgreSQL). */
  startGateway: (env: Record<string, string>, name: string) => Promise<Child>;
  /** bench/baseline/bare-sql.js with `env` (a fresh BASELINE_DATA_DIR unless BASELINE_DATABASE_URL is given). */
  startSql: (env: Record<string, string>, name: string) => Promise<Child>;
  stop: (c: Child) => Promise<void>;
  /** A fresh PostgreSQL database (dropped by `drop`), or undefined when there is no PostgreSQL. */
  freshDatabase?: () => Promise<{ url: string; name: string; drop: () => Promise<void> }>;
}

type Store = { env: Record<string, string>; bareEnv: Record<string, string>; database?: string; drop: () => Promise<void> };

async function store(deps: DatabaseDeps, db: 'embedded' | 'PostgreSQL'): Promise<Store> {
  if (db === 'embedded') return { env: {}, bareEnv: {}, drop: async () => {} };
  const pg = await deps.freshDatabase!();
  return { env: { DATABASE_URL: pg.url }, bareEnv: { BASELINE_DATABASE_URL: pg.url }, database: pg.name, drop: pg.drop };
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
/**
 * Each side's warm-up before the create rounds. A create runs more code than a read (the statement,
 * the trail entry's hash, the figures), and one second left the gateway's first round a third slower
 * than its second (422 and 554 req/s, 2026-11-28): the growth case found 3,000 creates needed for a
 * steady rate. Both sides get the same warm-up; the rounds then measure a server that has been up.
 */
const CREATE_WARMUP_SECONDS = 8;
/**
 * Each side's warm-up before a computed-list pair. The first pair ran right after seeding with one
 * second of warm-up, and its gateway rounds rose round by round (273, 317, 369 req/s, 2026-11-28)
 * while the same gateway answered the same query at 362–403 req/s in the pair after it.
 */
const LIST_WARMUP_SECONDS = 5;
const createBody = JSON.stringify({ title: 'Bench write [<id>]', framework: 'gdpr', priority: 'high', acceptanceCriteria: ['Logged'] });

/** Scale-out figures gathered by the cases: CPU ms per request of each component. */
export interface ScaleFigures {
  db?: string;
  write?: { gateway: number; database: number };
  read?: { gateway: number; database: number };
}

async function statementsPer(gw: Child, n: number, send: (i: number) => Promise<unknown>): Promise<number> {
  const before = await sqlCount(gw);
  for (let i = 0; i < n; i++) await send(i);
  return ((await sqlCount(gw)) - before) / n;
}

/** POST /v1/requirements at 20 connections against the bare INSERT. */
export async function runCreateCase(deps: DatabaseDeps, db: 'embedded' | 'PostgreSQL', figures: ScaleFigures) {
  const { report, adminKey: key } = deps;
  const name = `#36 create POST /v1/requirements (${db}) vs bare node:http + pg INSERT`;
  if (db === 'PostgreSQL' && !deps.freshDatabase) {
    report.unavailable(name, '≥ 0.25x, CPU ≤ 4x', 'no PostgreSQL (set BENCH_DATABASE_URL)');
    report.unavailable('#36 create on PostgreSQL: p95 at 20 connections', '< 100 ms', 'no PostgreSQL (set BENCH_DATABASE_URL)');
    return;
  }
  const gs = await store(deps, db);
  const bs = await store(deps, db);
  const gw = await deps.startGateway(gs.env, `gateway (${db})`);
  const bare = await deps.startSql({ ...bs.bareEnv, BASELINE_SEED: '0' }, `node:http + pg (${db})`);
  try {
    const spec = (c: Child): LoadSpec => ({
      url: `${c.url}/v1/requirements`,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth(key) },
      body: createBody,
      idReplacement: true,
      connections: 20,
    });
    const statements = await statementsPer(gw, 20, (i) =>
      fetch(`${gw.url}/v1/requirements`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth(key) },
        body: createBody.replace('[<id>]', `s${i}`),
      }).then((r) => r.arrayBuffer()),
    );
    const p = await measurePair(
      report,
      `POST /v1/requirements, 20 connections (${db})`,
      { server: gw, spec: spec(gw), postgresDatabase: gs.database },
      { server: bare, spec: spec(bare), postgresDatabase: bs.database },
      { warmupSeconds: CREATE_WARMUP_SECONDS },
    );
    pairBudget(report, name, p, 0.25, db === 'PostgreSQL' ? 4 : undefined, `SQL statements per create: gateway ${statements.toFixed(1)}, bare 1`);
    if (db === 'PostgreSQL') {
      report.check(
        '#36 create on PostgreSQL: p95 at 20 connections (autocannon p97.5, the nearest percentile above)',
        '< 100 ms',
        `${p.gateway.p97_5} ms (bare ${p.baseline.p97_5} ms)`,
        p.gateway.p97_5 < 100,
        `p97.5 ${p.gateway.p97_5} ms`,
      );
    }
    figures.write = {
      gateway: p.gateway.cpuMsPerRequest,
      database: Number.isFinite(p.gateway.postgresCpuMsPerRequest) ? p.gateway.postgresCpuMsPerRequest : 0,
    };
    figures.db = db;
  } finally {
    await deps.stop(bare);
    await deps.stop(gw);
    await gs.drop();
    await bs.drop();
  }
}

/** Lists of 50 computed on every request: the gateway with no read-model cache against bare node:http + pg and the Apollo peer. */
export async function runListsCase(deps: DatabaseDeps, db: 'embedded' | 'PostgreSQL', figures: ScaleFigures) {
  const { report, adminKey: key } = deps;
  if (db === 'PostgreSQL' && !deps.freshDatabase)
    return report.unavailable('#36 computed lists on PostgreSQL', '≥ 0.5x / 0.6x', 'no PostgreSQL (set BENCH_DATABASE_URL)');
  const [gs, bs, as] = [await store(deps, db), await store(deps, db), await store(deps, db)];
  const gw = await deps.startGateway({ ...gs.env, READ_MODEL_CACHE_BYTES: '0' }, `gateway, no read-model cache (${db})`);
  const started: Child[] = [gw];
  try {
    await seedCompliance(gw.url, key, 500);
    const bare = await deps.startSql({ ...bs.bareEnv, BASELINE_SEED: '500' }, `node:http + pg (${db})`);
    started.push(bare);
    const apollo = await deps.startSql({ ...as.bareEnv, BASELINE_SEED: '500', BASELINE_MODE: 'apollo' }, `express + Apollo peer (${db})`);
    started.push(apollo);
    // Unique variables on every request: no response cache anywhere can answer it.
    const gql = (c: Child): LoadSpec => ({
      url: `${c.url}/graphql`,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth(key) },
      body: JSON.stringify({ query: GRAPHQL_QUERY, variables: { limit: 50, nonce: '[<id>]' } }),
      idReplacement: true,
    });
    const rest = (c: Child): LoadSpec => ({ url: `${c.url}/v1/requirements?limit=50`, headers: auth(key) });
    const trpc = (c: Child): LoadSpec => ({
      url: `${c.url}/trpc/compliance.requirements?input=${encodeURIComponent(JSON.stringify({ limit: 50 }))}`,
      headers: auth(key),
    });
    const probe = await (
      await fetch(`${apollo.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: GRAPHQL_QUERY, variables: { limit: 50 } }),
      })
    ).json();
    if ((probe as any).data?.requirements?.data?.length !== 50) throw new Error(`Apollo peer probe: ${JSON.stringify(probe).slice(0, 300)}`);
    const gqlStatements = await statementsPer(gw, 10, (i) =>
      fetch(`${gw.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth(key) },
        body: JSON.stringify({ query: GRAPHQL_QUERY, variables: { limit: 50, nonce: `c${i}` } }),
      }).then((r) => r.arrayBuffer()),
    );
    const restStatements = await statementsPer(gw, 10, () => fetch(`${gw.url}/v1/requirements?limit=50`, { headers: auth(key) }).then((r) => r.arrayBuffer()));
    const side = (c: Child, s: Store, spec: LoadSpec) => ({ server: c, spec, postgresDatabase: s.database });
    const cases: [string, PairResult, number, string][] = [];
    const warm = { warmupSeconds: LIST_WARMUP_SECONDS };
    const g1 = await measurePair(report, `GraphQL list of 50 + framework + findings, computed (${db})`, side(gw, gs, gql(gw)), side(bare, bs, gql(bare)), warm);
    cases.push([
      `#36 computed GraphQL list of 50 (${db}) vs bare node:http + pg, same SELECTs`,
      g1,
      0.5,
      `SQL statements per request: gateway ${gqlStatements.toFixed(1)}, bare 3`,
    ]);
    const g2 = await measurePair(report, `GraphQL list of 50, computed (${db}) vs Apollo`, side(gw, gs, gql(gw)), side(apollo, as, gql(apollo)), warm);
    cases.push([
      `#36 computed GraphQL list of 50 (${db}) vs express + @apollo/server peer (no shared cache)`,
      g2,
      1.5,
      'peer: page SELECT + findings batched by dataloader (2 statements)',
    ]);
    const r = await measurePair(report, `REST list of 50, computed (${db})`, side(gw, gs, rest(gw)), side(bare, bs, rest(bare)), warm);
    cases.push([
      `#36 computed REST list of 50 (${db}) vs bare node:http + pg`,
      r,
      0.6,
      `SQL statements per request: gateway ${restStatements.toFixed(1)}, bare 2`,
    ]);
    const t = await measurePair(report, `tRPC list of 50, computed (${db})`, side(gw, gs, trpc(gw)), side(bare, bs, trpc(bare)), warm);
    cases.push([`#36 computed tRPC list of 50 (${db}) vs bare node:http + pg`, t, 0.6, '']);
    for (const [name, p, min, extra] of cases) pairBudget(report, name, p, min, undefined, extra);
    if (!figures.read || db === 'PostgreSQL')
      figures.read = {
        gateway: r.gateway.cpuMsPerRequest,
        database: Number.isFinite(r.gateway.postgresCpuMsPerRequest) ? r.gateway.postgresCpuMsPerRequest : 0,
      };
  } finally {
    for (const c of started.reverse()) await deps.stop(c);
    for (const s of [gs, bs, as]) await s.drop();
  }
}

const FRAMEWORKS = ['iso13485', 'fda21cfr11', 'gdpr', 'soc2'];
const LEVELS = (process.env.BENCH_FILTER_LEVELS ?? process.env.BENCH_GROWTH ?? '1000,10000,100000').split(',').map(Number);

/** A list filtered by framework against the unfiltered list, on one gateway grown level by level. */
export async function runFilteredGrowthCase(deps: DatabaseDeps) {
  const { report, adminKey: key } = deps;
  const gw = await deps.startGateway({ READ_MODEL_CACHE_BYTES: '0' }, 'gateway, no read-model cache (growth)');
  try {
    let have = 0;
    let last: PairResult | undefined;
    for (const level of LEVELS) {
      const batches: number[] = [];
      for (let s = have; s < level; s += 100) batches.push(s);
      const t0 = performance.now();
      await mapLimit(batches, 4, async (start) => {
        const requirements = Array.from({ length: Math.min(100, level - start) }, (_, k) => ({
          title: `Growth requirement ${start + k}`,
          framework: FRAMEWORKS[(start + k) % 4],
          priority: 'medium',
          acceptanceCriteria: ['c'],
        }));
        const res = await fetch(`${gw.url}/v1/requirements/batch`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...auth(key) },
          body: JSON.stringify({ requirements }),
        });
        if (!res.ok) throw new Error(`batch create → ${res.status}: ${(await res.text()).slice(0, 200)}`);
        await res.arrayBuffer();
      });
      report.note(`growth: ${level} requirements (seeded ${level - have} in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
      have = level;
      const spec = (q: string): LoadSpec => ({ url: `${gw.url}/v1/requirements?${q}`, headers: auth(key), connections: 20 });
      last = await measurePair(
        report,
        `REST list of 50 filtered by framework at ${level} rows`,
        { server: gw, spec: spec('limit=50&framework=gdpr') },
        { server: gw, spec: spec('limit=50') },
      );
      report.note(
        `growth at ${level}: filtered/unfiltered ${last.ratio.toFixed(2)}x req/s, CPU/req ${cpuPerRequest(last.gateway).toFixed(3)} vs ${cpuPerRequest(last.baseline).toFixed(3)} ms`,
      );
    }
    const top = LEVELS[LEVELS.length - 1];
    const p = last!;
    const ok = p.ratio >= 0.8 && p.cpuRatio <= 1.2;
    report.check(
      `#36 filtered list (framework) at ${top} rows vs the unfiltered list, same gateway`,
      'within 20 % (req/s ≥ 0.8x, CPU/req ≤ 1.2x)',
      `${p.ratio.toFixed(2)}x req/s, CPU/req ${p.cpuRatio.toFixed(2)}x (rounds ${p.rounds})`,
      ok,
      `req/s ${p.ratio.toFixed(2)}x, CPU ${p.cpuRatio.toFixed(2)}x`,
    );
  } finally {
    await deps.stop(gw);
  }
}

/** The scale-out table on paper: CPU per write and per read of each component and the ceiling at 8 instances. */
export function printScaleOut(report: Report, f: ScaleFigures) {
  if (!f.write || !f.read) return report.note('scale-out table: needs the create and lists cases in the same run');
  const dbCores = Number(process.env.BENCH_DB_CORES ?? 8);
  const rows = [
    ['gateway (each instance, 1 core)', f.write.gateway, f.read.gateway, 8],
    [`PostgreSQL (one server, ${dbCores} cores)`, f.write.database, f.read.database, dbCores],
  ] as const;
  const ceil = (ms: number, cores: number) => (ms > 0 ? (cores * 1000) / ms : Infinity);
  const lines = rows.map(([n, w, r, cores]) => `| ${n} | ${w.toFixed(3)} | ${r.toFixed(3)} | ${ceil(w, cores).toFixed(0)} | ${ceil(r, cores).toFixed(0)} |`);
  const wMax = Math.min(...rows.map(([, w, , c]) => ceil(w, c)));
  const rMax = Math.min(...rows.map(([, , r, c]) => ceil(r, c)));
  report.note(
    `scale-out on paper (${f.db}; CPU ms per request from the create and REST-list pairs; ceiling = cores × 1000 / CPU ms):\n\n| component | CPU ms/write | CPU ms/read | writes/s ceiling at 8 instances | reads/s ceiling |\n|---|---:|---:|---:|---:|\n${lines.join('\n')}\n| Redis | not measured | not measured | – | – |\n\n` +
      `Projected ceiling at 8 instances: ${wMax.toFixed(0)} writes/s, ${rMax.toFixed(0)} reads/s (computed; cache hits need no database). Redis: the bench runs without REDIS_URL (the defaults), and the shared server's CPU cannot be told apart by client.`,
  );
}
