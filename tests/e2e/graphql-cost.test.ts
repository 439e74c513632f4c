import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { graphql, startGateway, type TestGateway } from '../helpers/gateway';

/**
 * GraphQL cost counts list sizes: a field's `limit` multiplies the cost of what is under it (with the
 * variables' values), so twenty aliases of `requirements(limit: 500)` with nested fields are refused
 * before anything runs; and one operation's answer has a size cap.
 */
let gw: TestGateway;
let small: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
  small = await startGateway({ GRAPHQL_MAX_RESULT_BYTES: '4096' });
  for (let i = 0; i < 3; i++) {
    const res = await gw.request('/v1/requirements', { method: 'POST', json: { title: `Costed ${i}`, framework: 'gdpr', acceptanceCriteria: ['one', 'two'] } });
    expect(res.status).toBe(201);
  }
}, 180_000);
afterAll(async () => {
  await gw?.close();
  await small?.close();
});

const NESTED =
  'data { id title description status priority acceptanceCriteria createdAt findings { id title severity status evidence } frameworkInfo { id name } } pagination { total }';
const gql = (g: TestGateway, query: string, variables?: Record<string, unknown>) => graphql(g, query, variables);

test('twenty aliases of requirements(limit: 500) with nested fields: 400, refused before running', async () => {
  const aliases = Array.from({ length: 20 }, (_, i) => `r${i}: requirements(limit: 500) { ${NESTED} }`).join(' ');
  const started = Date.now();
  const { status, body } = await gql(gw, `{ ${aliases} }`);
  expect(status).toBe(400);
  expect(body.data ?? null).toBeNull();
  expect(body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
  expect(body.errors[0].extensions.details.cost).toBeGreaterThan(body.errors[0].extensions.details.maxCost);
  expect(body.errors[0].message).toMatch(/limit/);
  expect(Date.now() - started).toBeLessThan(5000);
});

test('the same query with a small page is allowed; the limit in a variable counts with its value', async () => {
  const ok = await gql(gw, `{ requirements(limit: 10) { ${NESTED} } }`);
  expect(ok.body.errors).toBeUndefined();
  expect(ok.body.data.requirements.data.length).toBe(3);

  const query = `query($n: Int) { a: requirements(limit: $n) { ${NESTED} } b: requirements(limit: $n) { ${NESTED} } }`;
  expect((await gql(gw, query, { n: 5 })).body.errors).toBeUndefined();
  const big = await gql(gw, query, { n: 500 });
  expect(big.status).toBe(400);
  expect(big.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
});

test('over graphql-ws the same cost is refused', async () => {
  const client = createClient({
    url: `${gw.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: 'test-admin-key-0123456789abcdef' },
    retryAttempts: 0,
    lazy: true,
  });
  try {
    const errors: any = await new Promise((resolve) => {
      client.subscribe(
        { query: `{ a: requirements(limit: 500) { ${NESTED} } b: requirements(limit: 500) { ${NESTED} } }` },
        { next: () => undefined, error: resolve, complete: () => resolve(null) },
      );
    });
    expect(errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
  } finally {
    await client.dispose();
  }
});

test('an answer over the result size cap is a 413 PAYLOAD_TOO_LARGE instead', async () => {
  const { body } = await gql(small, '{ frameworks { id name description requirements { id section title description } } }');
  expect(body.data ?? null).toBeNull();
  expect(body.errors[0].extensions).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
  expect(body.errors[0].extensions.details.maxBytes).toBe(4096);
  const fine = await gql(small, '{ frameworks { id } }');
  expect(fine.body.errors).toBeUndefined();
});

describe('traceability: weights from measured CPU (parts/cost-weights.ts)', () => {
  const FINDING = 'id title description severity status discoveredAt dueDate resolution resolvedAt evidence';
  const REQ = `id title status priority clauses latestValidation { status score lastValidated } openFindings { ${FINDING} } resolvedFindings { ${FINDING} } evidence { kind value findingId }`;
  /** Every field of the matrix. */
  const FULL = `traceability(framework: $f) {
    framework frameworkName version generatedAt findingsIncluded
    summary { clauses covered gaps coveragePercent requirements unmappedRequirements unassignedRequirements openFindings resolvedFindings }
    clauses { clauseId section title category covered requirements { ${REQ} } }
    gaps { clauseId section title category }
    unmappedRequirements { ${REQ} }
    unlinkedFindings { ${FINDING} } }`;

  beforeAll(async () => {
    // The largest framework of the catalogue (soc2, 61 clauses), with requirements, validations, findings and evidence.
    const frameworks = (await (await gw.request('/v1/frameworks')).json()) as any;
    const largest = [...frameworks.data].sort((a: any, b: any) => b.requirementCount - a.requirementCount)[0];
    expect(largest.id).toBe('soc2');
    const requirements = Array.from({ length: 40 }, (_, i) => ({
      title: `Access control and encryption of records ${i}`,
      description: 'Logical access is restricted, reviewed quarterly, and data is encrypted at rest and in transit; changes are authorised and tested.',
      framework: 'soc2',
      implementation: i % 2 ? { testFile: `tests/r${i}.test.ts`, gitBranch: `feature/r${i}`, relatedIssues: [`#${i}`] } : undefined,
    }));
    const created = (await (await gw.request('/v1/requirements/batch', { method: 'POST', json: { requirements } })).json()) as any;
    const ids = created.created.map((c: any) => c.id);
    expect(ids).toHaveLength(40);
    expect((await gw.request('/api/validate/batch', { method: 'POST', json: { requirementIds: ids } })).status).toBe(200);
    for (let i = 0; i < 12; i++) {
      const f = (await (
        await gw.request('/v1/audits/findings', {
          method: 'POST',
          json: { title: `Finding ${i}`, framework: 'soc2', severity: 'medium', requirementId: i < 10 ? ids[i] : null, evidence: [`e${i}.pdf`] },
        })
      ).json()) as any;
      if (i % 3 === 0)
        expect((await gw.request(`/v1/audits/findings/${f.id}`, { method: 'PATCH', json: { status: 'resolved', resolution: 'Fixed' } })).status).toBe(200);
    }
  });

  test("a query selecting every field of the largest framework's matrix is answered, the same as REST", async () => {
    const { status, body } = await gql(gw, `query($f: FrameworkId!) { ${FULL} }`, { f: 'SOC2' });
    expect(body.errors).toBeUndefined();
    expect(status).toBe(200);
    const m = body.data.traceability;
    const rest = (await (await gw.request('/v1/compliance/traceability?framework=soc2')).json()) as any;
    expect(m.summary).toEqual(rest.summary);
    expect(m.clauses).toHaveLength(61);
    expect(m.clauses.map((c: any) => [c.section, c.requirements.map((r: any) => r.id)])).toEqual(
      rest.clauses.map((c: any) => [c.section, c.requirements.map((r: any) => r.id)]),
    );
    expect(m.summary.openFindings + m.summary.resolvedFindings).toBe(12);
    expect(m.clauses.flatMap((c: any) => c.requirements).some((r: any) => r.openFindings.length && r.evidence.length)).toBe(true);
  });

  test('a truly abusive query is still refused before running: the full matrix twenty times, or of every framework', async () => {
    const twenty = Array.from({ length: 20 }, (_, i) => `m${i}: ${FULL}`).join(' ');
    const many = await gql(gw, `query($f: FrameworkId!) { ${twenty} }`, { f: 'SOC2' });
    expect(many.status).toBe(400);
    expect(many.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(many.body.errors[0].extensions.details.cost).toBeGreaterThan(10 * many.body.errors[0].extensions.details.maxCost);
    const every = ['SOC2', 'ISO13485', 'GDPR', 'FDA21CFR11'].map((f) => `${f.toLowerCase()}: ${FULL.replace('$f', f)}`).join(' ');
    const all = await gql(gw, `{ ${every} }`);
    expect(all.status).toBe(400);
    expect(all.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
    // Listing requirements with their findings, as before: a page of 500 is still counted per row.
    const rows = await gql(gw, `{ ${Array.from({ length: 3 }, (_, i) => `r${i}: requirements(limit: 500) { ${NESTED} }`).join(' ')} }`);
    expect(rows.status).toBe(400);
  });
});
