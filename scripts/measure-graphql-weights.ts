/**
 * Measures the gateway's CPU for the GraphQL operations whose weights the cost limit uses
 * (gateway/graphql/parts/cost-weights.ts; the basis is written in docs/decisions.md):
 *
 * - the unit: one field of one row of a full requirements page (`requirements(limit: 500)` with every
 *   scalar field), the operation the 20,000 limit was set against;
 * - building the traceability matrix of the largest framework (a selection of one field);
 * - one field of the built matrix (its objects are read, not computed: per field in the answer).
 *
 * The gateway runs as a child process on a throw-away embedded database seeded with a reference
 * data set; its own CPU (utime + stime of /proc/<pid>/stat) is read around each series, so neither
 * this client nor the database process is counted. Figures vary by a few percent from run to run
 * (CPU time is read in 10 ms ticks); ROUNDS repetitions of each series average that out. `npm run build && node dist/scripts/measure-graphql-weights.js`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'graphql';
import { getFramework, SUPPORTED_FRAMEWORKS } from '../domain/compliance/catalogue';
import { buildGraphqlSchema } from '../gateway/graphql';
import { InProcessEventBus } from '../domain/events/bus';
import { operationCost } from '../gateway/graphql/parts/cost';

const ADMIN = 'measure-weights-admin-key-0123456789';
/** The reference data set: requirements of the largest framework, findings linked to them. */
const REQUIREMENTS = Number(process.env.MEASURE_REQUIREMENTS ?? 250);
const FINDINGS = Number(process.env.MEASURE_FINDINGS ?? 125);
const ROUNDS = Number(process.env.MEASURE_ROUNDS ?? 40);
/** Aliases of one root field in the series that separate the matrix's fields from its build. */
const ALIASES = Number(process.env.MEASURE_ALIASES ?? 6);

const ticksPerSecond = 100; // USER_HZ on Linux
function cpuMicros(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / ticksPerSecond;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

/** Field instances of an answer: every member of every object (a list's items are counted through their members). */
function fieldInstances(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + fieldInstances(v), 0);
  if (value && typeof value === 'object') return Object.values(value).reduce((n: number, v) => n + 1 + fieldInstances(v), 0);
  return 0;
}

const FINDING = 'id title description severity status discoveredAt dueDate resolution resolvedAt evidence';
const TRACE_REQUIREMENT = `id title status priority clauses latestValidation { status score lastValidated } openFindings { ${FINDING} } resolvedFindings { ${FINDING} } evidence { kind value findingId }`;
/** Every field of the matrix. */
export const FULL_TRACEABILITY = `query($f: FrameworkId!) { traceability(framework: $f) {
  framework frameworkName version generatedAt findingsIncluded
  summary { clauses covered gaps coveragePercent requirements unmappedRequirements unassignedRequirements openFindings resolvedFindings }
  clauses { clauseId section title category covered requirements { ${TRACE_REQUIREMENT} } }
  gaps { clauseId section title category }
  unmappedRequirements { ${TRACE_REQUIREMENT} }
  unlinkedFindings { ${FINDING} } } }`;
const REQUIREMENT_PAGE = `query($o: Int) { requirements(limit: 500, offset: $o) { data { id title description framework category priority status acceptanceCriteria createdAt updatedAt
  technicalContext { scope dataFlow relatedComponents } implementation { testFile gitBranch relatedIssues completedAt } validation { status lastValidated score } } pagination { total limit offset hasMore } } }`;
const MATRIX_ONLY = 'query($f: FrameworkId!) { traceability(framework: $f) { framework } }';
/**
 * The full selection in parts that each pass the list-blind limit of the old weights (every field
 * 1 unit, 10 items per list), so the same series runs before and after the weights change.
 */
const PARTS = [
  `query($f: FrameworkId!) { traceability(framework: $f) { framework frameworkName version generatedAt findingsIncluded
    summary { clauses covered gaps coveragePercent requirements unmappedRequirements unassignedRequirements openFindings resolvedFindings }
    gaps { clauseId section title category } unmappedRequirements { ${TRACE_REQUIREMENT} } unlinkedFindings { ${FINDING} } } }`,
  `query($f: FrameworkId!) { traceability(framework: $f) { clauses { clauseId section title category covered requirements { id title status priority clauses latestValidation { status score lastValidated } evidence { kind value findingId } } } } }`,
  `query($f: FrameworkId!) { traceability(framework: $f) { clauses { requirements { openFindings { ${FINDING} } } } } }`,
  `query($f: FrameworkId!) { traceability(framework: $f) { clauses { requirements { resolvedFindings { ${FINDING} } } } } }`,
];

async function main() {
  const largest = [...SUPPORTED_FRAMEWORKS].sort((a, b) => getFramework(b).clauses.length - getFramework(a).clauses.length)[0];
  const catalogue = getFramework(largest);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'measure-weights-'));
  const port = await freePort();
  // The gateway as `npm start` runs it, with its cost limit lifted in that process only: the series
  // below ask for more than one operation may (aliases), to separate the matrix's fields from its build.
  const dist = path.join(__dirname, '..');
  const boot = `require(${JSON.stringify(path.join(dist, 'gateway/graphql/parts/limits.js'))}).GRAPHQL_LIMITS.maxCost = 1e12; require(${JSON.stringify(path.join(dist, 'gateway/main.js'))});`;
  const child = spawn(process.execPath, ['-e', boot], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ADMIN_API_KEY: ADMIN,
      LOG_LEVEL: process.env.MEASURE_LOG_LEVEL ?? 'silent',
      API_RATE_LIMIT: '10000000',
      GATEWAY_SKIP_BUILD_CHECK: '1',
      DATABASE_URL: '',
    },
    stdio: ['ignore', process.env.MEASURE_LOG_LEVEL ? 'inherit' : 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const call = async (p: string, init: { method?: string; json?: unknown } = {}) => {
    const res = await fetch(base + p, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${ADMIN}`, ...(init.json ? { 'content-type': 'application/json' } : {}) },
      body: init.json ? JSON.stringify(init.json) : undefined,
    });
    const text = await res.text();
    if (res.status >= 400) throw new Error(`${p}: ${res.status} ${text.slice(0, 500)}`);
    return text;
  };
  const gql = async (query: string, variables: Record<string, unknown>) => {
    const text = await call('/graphql', { method: 'POST', json: { query, variables } });
    const body = JSON.parse(text) as { data?: unknown; errors?: unknown };
    if (body.errors) throw new Error(JSON.stringify(body.errors).slice(0, 500));
    return body.data;
  };
  try {
    for (let i = 0; ; i++) {
      try {
        await call('/api/v1/health/ready');
        break;
      } catch {
        if (i > 600) throw new Error('the gateway did not start');
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    // Seed: requirements whose text names one or two clauses' keywords; half completed with evidence.
    const ids: string[] = [];
    for (let start = 0; start < REQUIREMENTS; start += 100) {
      const batch = Array.from({ length: Math.min(100, REQUIREMENTS - start) }, (_, k) => {
        const i = start + k;
        const a = catalogue.clauses[i % catalogue.clauses.length];
        const b = catalogue.clauses[(i * 7 + 3) % catalogue.clauses.length];
        return {
          title: `Requirement ${i}: ${a.keywords[0]} and ${b.keywords[0]}`,
          description: `The system enforces ${a.keywords.join(', ')} for every record ${i}.`,
          framework: largest,
          priority: ['low', 'medium', 'high', 'critical'][i % 4],
          acceptanceCriteria: [`Verified by test ${i}`, `Reviewed in audit ${i}`],
          implementation: i % 2 ? { testFile: `tests/req-${i}.test.ts`, gitBranch: `feature/req-${i}`, relatedIssues: [`#${i}`, `#${i + 1000}`] } : undefined,
        };
      });
      const created = JSON.parse(await call('/v1/requirements/batch', { method: 'POST', json: { requirements: batch } })) as { created: { id: string }[] };
      ids.push(...created.created.map((c) => c.id));
    }
    // Other frameworks' requirements, so that every measured page holds 500 rows.
    for (let start = 0; start < 500 + ROUNDS; start += 100) {
      const other = SUPPORTED_FRAMEWORKS.find((id) => id !== largest)!;
      const batch = Array.from({ length: 100 }, (_, k) => ({
        title: `Other requirement ${start + k}`,
        description: 'Filler for full pages.',
        framework: other,
        acceptanceCriteria: ['One', 'Two'],
      }));
      await call('/v1/requirements/batch', { method: 'POST', json: { requirements: batch } });
    }
    for (let start = 0; start < ids.length; start += 100)
      await call('/api/validate/batch', { method: 'POST', json: { requirementIds: ids.slice(start, start + 100) } });
    for (let i = 0; i < FINDINGS; i++) {
      const f = JSON.parse(
        await call('/v1/audits/findings', {
          method: 'POST',
          json: {
            title: `Finding ${i}`,
            description: `Observed during audit ${i}.`,
            framework: largest,
            severity: ['low', 'medium', 'high', 'critical'][i % 4],
            requirementId: i % 10 === 9 ? null : ids[(i * 13) % ids.length],
            evidence: [`evidence/${i}-a.pdf`, `evidence/${i}-b.png`],
          },
        }),
      ) as { id: string };
      if (i % 3 === 0) await call(`/v1/audits/findings/${f.id}`, { method: 'PATCH', json: { status: 'resolved', resolution: `Fixed in change ${i}` } });
    }

    const schema = await buildGraphqlSchema(new InProcessEventBus());
    const measure = async (query: string, variables: (round: number) => Record<string, unknown>) => {
      for (let r = 0; r < 5; r++) await gql(query, variables(-1 - r)); // warm up (compiled execution, caches)
      const answers: unknown[] = [];
      const before = cpuMicros(child.pid!);
      for (let r = 0; r < ROUNDS; r++) answers.push(await gql(query, variables(r)));
      const micros = (cpuMicros(child.pid!) - before) / ROUNDS;
      const fields = answers.reduce((n: number, a) => n + fieldInstances(a), 0) / ROUNDS;
      return { micros, fields, data: answers[0] };
    };
    /** The operation of `query` with its root field asked `k` times under aliases. */
    const aliased = (query: string, k: number) => {
      const open = query.indexOf('{');
      const body = query.slice(open + 1, query.lastIndexOf('}')).trim();
      return `${query.slice(0, open)}{ ${Array.from({ length: k }, (_, i) => `a${i}: ${body}`).join(' ')} }`;
    };
    const f = { f: largest.toUpperCase() };

    // The unit: a page of 500 requirements, every field (a new offset each time: no kept answer).
    const page = await measure(REQUIREMENT_PAGE, (r) => ({ o: r < 0 ? 200 - r : r }));
    const pageCost = operationCost(schema, parse(REQUIREMENT_PAGE), null, { o: 0 });
    const unitMicros = page.micros / page.fields;
    // The matrix alone, once and under ALIASES aliases (identical requests made at once share one build).
    const matrix = await measure(MATRIX_ONLY, () => f);
    const matrixAliased = await measure(aliased(MATRIX_ONLY, ALIASES), () => f);
    // Its fields: each part of the full selection once and under ALIASES aliases; the difference is
    // ALIASES - 1 times the part's fields, read from the one shared matrix.
    let fieldMicros = 0;
    let fieldCount = 0;
    for (const part of PARTS) {
      const once = await measure(part, () => f);
      const many = await measure(aliased(part, ALIASES), () => f);
      fieldMicros += many.micros - once.micros;
      fieldCount += (ALIASES - 1) * (once.fields - 1);
    }
    const perTraceField = fieldMicros / fieldCount;
    const full = await measure(FULL_TRACEABILITY, () => f);

    // The matrix's list sizes in the reference data set: what its lists' assumed sizes are set from.
    type Req = { openFindings: unknown[]; resolvedFindings: unknown[]; evidence: unknown[] };
    const m = (full.data as { traceability: { clauses: { requirements: Req[] }[]; unmappedRequirements: Req[]; unlinkedFindings: unknown[] } }).traceability;
    const stat = (xs: number[]) => ({ mean: xs.length ? +(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(2) : 0, max: Math.max(0, ...xs) });
    const reqs = [...m.clauses.flatMap((c) => c.requirements), ...m.unmappedRequirements];
    const out = {
      framework: largest,
      clauses: catalogue.clauses.length,
      requirements: REQUIREMENTS,
      findings: FINDINGS,
      rounds: ROUNDS,
      listSizes: {
        'TraceClause.requirements': stat(m.clauses.map((c) => c.requirements.length)),
        'TraceabilityMatrix.unmappedRequirements': m.unmappedRequirements.length,
        'TraceabilityMatrix.unlinkedFindings': m.unlinkedFindings.length,
        'TraceRequirement.openFindings': stat(reqs.map((r) => r.openFindings.length)),
        'TraceRequirement.resolvedFindings': stat(reqs.map((r) => r.resolvedFindings.length)),
        'TraceRequirement.evidence': stat(reqs.map((r) => r.evidence.length)),
      },
      requirementPage: {
        cpuMicros: Math.round(page.micros),
        fieldInstances: Math.round(page.fields),
        staticCost: pageCost,
        microsPerField: +unitMicros.toFixed(3),
      },
      matrixBuild: {
        cpuMicros: Math.round(matrix.micros),
        units: Math.round(matrix.micros / unitMicros),
        [`cpuMicrosUnder${ALIASES}Aliases`]: Math.round(matrixAliased.micros),
      },
      matrixField: {
        microsPerField: +perTraceField.toFixed(4),
        unitsPerField: +(perTraceField / unitMicros).toFixed(4),
        measuredFields: Math.round(fieldCount),
      },
      fullMatrix: {
        cpuMicros: Math.round(full.micros),
        units: Math.round(full.micros / unitMicros),
        fieldInstances: Math.round(full.fields),
        bytes: JSON.stringify(full.data).length,
        staticCost: operationCost(schema, parse(FULL_TRACEABILITY), null, f),
      },
    };
    console.log(JSON.stringify(out, null, 2));
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
