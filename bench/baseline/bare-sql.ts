/**
 * Baseline for the database paths: bare `node:http` + `pg` (a pool of 10, as the gateway's), no
 * framework, no cache. BASELINE_DATABASE_URL: a PostgreSQL database of its own; otherwise
 * BASELINE_DATA_DIR: an embedded PGlite started as the gateway starts it (domain/database/embedded.ts:
 * pglite-socket in a child process, reached over its Unix socket). It makes the gateway's two tables
 * (`requirements`, `audit_findings`, the migration's columns) and seeds BASELINE_SEED requirements,
 * each with one finding. BASELINE_MODE:
 *  - `bare` (default): POST /v1/requirements is one INSERT … RETURNING; GET /v1/requirements?limit=&framework=
 *    is the page and its count; POST /graphql answers the same page with each requirement's findings
 *    (one more SELECT … WHERE requirement_id = ANY($1)); GET /trpc/… answers the page in the detail
 *    form the gateway's tRPC list answers (`compliance.requirements` is `{ detail: true }`: the JSONB
 *    columns technical_context, implementation, validation and category too), so both sides select,
 *    parse and send the same columns (computation against computation, same bytes).
 *  - `apollo`: a plain express 5 + @apollo/server 5 peer serving the same GraphQL query (requirements with
 *    frameworkInfo and findings; findings batched per request with dataloader), no response cache.
 * Prints `LISTENING <url>` when ready.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Pool, type PoolConfig } from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../domain/database/embedded';

const FRAMEWORKS: Record<string, { id: string; name: string; version: string }> = {
  iso13485: { id: 'iso13485', name: 'ISO 13485', version: '2016' },
  fda21cfr11: { id: 'fda21cfr11', name: 'FDA 21 CFR Part 11', version: '2023' },
  gdpr: { id: 'gdpr', name: 'GDPR', version: '2016/679' },
  soc2: { id: 'soc2', name: 'SOC 2', version: '2017' },
};
const FW = Object.keys(FRAMEWORKS);
const PRIORITIES = ['critical', 'high', 'medium', 'low'];
const SEVERITIES = ['low', 'medium', 'high', 'critical'];
export const BARE_STATEMENTS = { create: 1, list: 2, graph: 3 };

const DDL = [
  `create table if not exists "requirements" ("id" varchar(40) not null, "title" varchar(300) not null, "description" text null, "framework" varchar(20) not null, "category" varchar(100) null, "priority" varchar(10) not null default 'medium', "status" varchar(12) not null default 'pending', "acceptance_criteria" jsonb not null, "technical_context" jsonb null, "implementation" jsonb null, "validation" jsonb null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "deleted_at" timestamptz null, constraint "requirements_pkey" primary key ("id"))`,
  `create table if not exists "audit_findings" ("id" varchar(40) not null, "title" varchar(300) not null, "description" text null, "framework" varchar(20) not null, "requirement_id" varchar(40) null, "severity" varchar(10) not null, "status" varchar(12) not null default 'open', "evidence" jsonb not null, "resolution" text null, "resolved_at" timestamptz null, "discovered_at" timestamptz not null, "due_date" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "audit_findings_pkey" primary key ("id"))`,
  `create index if not exists requirements_live_created on requirements (created_at desc, id desc) where deleted_at is null`,
  `create index if not exists requirements_framework_created on requirements (framework, created_at desc, id desc) where deleted_at is null`,
  `create index if not exists audit_findings_requirement on audit_findings (requirement_id)`,
];

const PAGE = `select id, title, description, framework, category, priority, status, acceptance_criteria, created_at, updated_at from requirements where deleted_at is null and ($1::text is null or framework = $1) order by created_at desc, id desc limit $2`;
const DETAIL_PAGE = `select id, title, description, framework, status, priority, created_at, updated_at, category, acceptance_criteria, technical_context, implementation, validation from requirements where deleted_at is null and ($1::text is null or framework = $1) order by created_at desc, id desc limit $2`;
const COUNT = `select count(*)::int as n from requirements where deleted_at is null and ($1::text is null or framework = $1)`;
const FINDINGS = `select id, title, severity, status, requirement_id from audit_findings where requirement_id = any($1::text[])`;

type Row = Record<string, any>;
const view = (r: Row) => ({
  id: r.id,
  title: r.title,
  description: r.description,
  framework: r.framework,
  category: r.category,
  priority: r.priority,
  status: r.status,
  acceptanceCriteria: r.acceptance_criteria,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

async function seed(pool: Pool, count: number) {
  const { rows } = await pool.query('select count(*)::int as n from requirements');
  for (let start = rows[0].n; start < count; start += 500) {
    const n = Math.min(500, count - start);
    const ids = Array.from({ length: n }, () => randomUUID());
    const base = Date.now() - count * 1000;
    await pool.query(
      `insert into requirements (id, title, framework, priority, acceptance_criteria, created_at, updated_at)
       select id, 'Bench requirement ' || i, ($2::text[])[1 + i % 4], ($3::text[])[1 + i % 4], '["criterion"]'::jsonb, to_timestamp(($4::bigint + i * 1000) / 1000.0), now()
       from unnest($1::text[]) with ordinality as t(id, i)`,
      [ids, FW, PRIORITIES, base + start * 1000],
    );
    await pool.query(
      `insert into audit_findings (id, title, description, framework, requirement_id, severity, evidence, discovered_at, created_at, updated_at)
       select gen_random_uuid()::text, 'Bench finding ' || i, 'Found during the benchmark seed', r.framework, r.id, ($2::text[])[1 + i % 4], '["evidence"]'::jsonb, now(), now(), now()
       from unnest($1::text[]) with ordinality as t(id, i) join requirements r on r.id = t.id`,
      [ids, SEVERITIES],
    );
  }
  await pool.query('analyze requirements');
  await pool.query('analyze audit_findings');
}

const body = (req: http.IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

function send(res: http.ServerResponse, status: number, value: unknown) {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** The detail form, field for field as the gateway's tRPC list answers it. */
const detailView = (r: Row) => ({
  id: r.id,
  title: r.title,
  description: r.description,
  framework: r.framework,
  status: r.status,
  priority: r.priority,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  category: r.category,
  acceptanceCriteria: r.acceptance_criteria ?? [],
  technicalContext: r.technical_context,
  implementation: r.implementation,
  validation: r.validation,
});

async function detailPage(pool: Pool, limit: number, framework: string | null) {
  const [rows, count] = await Promise.all([pool.query(DETAIL_PAGE, [framework, limit]), pool.query(COUNT, [framework])]);
  const total = count.rows[0].n;
  return { data: rows.rows.map(detailView), pagination: { total, limit, offset: 0, hasMore: rows.rows.length < total } };
}

async function page(pool: Pool, limit: number, framework: string | null, withFindings: boolean) {
  const [rows, count] = await Promise.all([pool.query(PAGE, [framework, limit]), pool.query(COUNT, [framework])]);
  const data = rows.rows.map(view);
  if (!withFindings) return { data, pagination: { total: count.rows[0].n, limit, offset: 0, hasMore: data.length < count.rows[0].n } };
  const found = await pool.query(FINDINGS, [data.map((r) => r.id)]);
  const byReq = new Map<string, Row[]>();
  for (const f of found.rows) {
    const list = byReq.get(f.requirement_id) ?? [];
    list.push({ id: f.id, title: f.title, severity: f.severity, status: f.status });
    byReq.set(f.requirement_id, list);
  }
  return {
    data: data.map((r) => ({
      id: r.id,
      title: r.title,
      status: r.status,
      priority: r.priority,
      framework: r.framework,
      frameworkInfo: FRAMEWORKS[r.framework],
      findings: byReq.get(r.id) ?? [],
    })),
  };
}

async function create(pool: Pool, text: string) {
  const input = JSON.parse(text) as { title?: string; framework?: string; priority?: string; acceptanceCriteria?: string[] };
  if (!input.title || !input.framework || !FRAMEWORKS[input.framework]) return { status: 400, value: { error: { code: 'VALIDATION_ERROR' } } };
  const { rows } = await pool.query(
    `insert into requirements (id, title, framework, priority, acceptance_criteria, created_at, updated_at) values ($1, $2, $3, $4, $5, now(), now()) returning id, title, description, framework, category, priority, status, acceptance_criteria, created_at, updated_at`,
    [randomUUID(), input.title, input.framework, input.priority ?? 'medium', JSON.stringify(input.acceptanceCriteria ?? [])],
  );
  return { status: 201, value: view(rows[0]) };
}

function bareServer(pool: Pool) {
  return http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    body(req)
      .then(async (text) => {
        if (req.method === 'POST' && url.pathname === '/v1/requirements') {
          const r = await create(pool, text);
          return send(res, r.status, r.value);
        }
        if (url.pathname === '/graphql') {
          const { variables } = JSON.parse(text) as { variables?: { limit?: number; framework?: string } };
          const p = await page(pool, variables?.limit ?? 20, variables?.framework ?? null, true);
          return send(res, 200, { data: { requirements: p } });
        }
        if (url.pathname.startsWith('/trpc/')) {
          const input = JSON.parse(url.searchParams.get('input') ?? '{}') as { limit?: number; framework?: string };
          return send(res, 200, { result: { data: await detailPage(pool, input.limit ?? 20, input.framework ?? null) } });
        }
        if (url.pathname === '/v1/requirements') {
          return send(res, 200, await page(pool, Number(url.searchParams.get('limit') ?? 20), url.searchParams.get('framework'), false));
        }
        send(res, 404, { error: { code: 'NOT_FOUND' } });
      })
      .catch((err: Error) => send(res, 500, { error: { code: 'INTERNAL', message: err.message } }));
  });
}

async function apolloServer(pool: Pool): Promise<http.Server> {
  const express = (await import('express')).default;
  const { ApolloServer } = await import('@apollo/server');
  const { expressMiddleware } = await import('@as-integrations/express5');
  const DataLoader = (await import('dataloader')).default;
  const typeDefs = `#graphql
    type FrameworkInfo { id: String! name: String! version: String! }
    type Finding { id: ID! title: String! severity: String! status: String! }
    type Requirement { id: ID! title: String! status: String! priority: String! framework: String! frameworkInfo: FrameworkInfo findings: [Finding!]! }
    type RequirementPage { data: [Requirement!]! }
    type Query { requirements(limit: Int, framework: String): RequirementPage! }`;
  type Ctx = { findings: InstanceType<typeof DataLoader<string, Row[]>> };
  const resolvers = {
    Query: {
      requirements: async (_: unknown, a: { limit?: number; framework?: string }) => ({
        data: (await pool.query(PAGE, [a.framework ?? null, a.limit ?? 20])).rows.map(view),
      }),
    },
    Requirement: {
      frameworkInfo: (r: Row) => FRAMEWORKS[r.framework],
      findings: (r: Row, _: unknown, ctx: Ctx) => ctx.findings.load(r.id),
    },
  };
  const apollo = new ApolloServer<Ctx>({ typeDefs, resolvers });
  await apollo.start();
  const app = express();
  app.use(express.json());
  app.use(
    '/graphql',
    expressMiddleware(apollo, {
      context: async () => ({
        findings: new DataLoader<string, Row[]>(async (ids) => {
          const { rows } = await pool.query(FINDINGS, [ids]);
          return ids.map((id) => rows.filter((f: Row) => f.requirement_id === id));
        }),
      }),
    }),
  );
  return http.createServer(app);
}

async function main() {
  let embedded: EmbeddedPostgres | undefined;
  let config: PoolConfig;
  if (process.env.BASELINE_DATABASE_URL) config = { connectionString: process.env.BASELINE_DATABASE_URL };
  else {
    embedded = await startEmbeddedPostgres(process.env.BASELINE_DATA_DIR!);
    config = { host: embedded.socketDir, user: 'postgres', database: 'postgres' };
  }
  const pool = new Pool({ ...config, max: 10 });
  for (const sql of DDL) await pool.query(sql);
  await seed(pool, Number(process.env.BASELINE_SEED ?? 500));
  const server = process.env.BASELINE_MODE === 'apollo' ? await apolloServer(pool) : bareServer(pool);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as import('node:net').AddressInfo;
  process.stdout.write(`LISTENING http://127.0.0.1:${port}\n`);
  process.on('SIGTERM', () => {
    server.close();
    void pool
      .end()
      .catch(() => undefined)
      .then(() => embedded?.stop())
      .finally(() => process.exit(0));
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
