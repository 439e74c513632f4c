import { issueKey, startGateway, type TestGateway } from '../helpers/gateway';
import { expectScoreByModel } from '../helpers/scoring';

/**
 * Honest scores and the release gate over real HTTP: coverage of the catalogue, requirement
 * status, validation and open findings all move the score (docs/scoring.md); the gate answers
 * pass or fail with reasons on REST, GraphQL and tRPC.
 */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
}, 180_000);
afterAll(async () => {
  await gw?.close();
});

const call = async (path: string, init: Parameters<TestGateway['request']>[1] = {}) => {
  const res = await gw.request(path, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
};
const gql = (query: string, variables: Record<string, unknown> = {}, auth?: string) => call('/graphql', { method: 'POST', json: { query, variables }, ...(auth ? { auth } : {}) });
const trpc = (path: string, input: unknown, auth?: string) => call(`/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, auth ? { auth } : {});

const part11 = async () => (await call('/v1/compliance/status?framework=fda21cfr11')).body.frameworks.fda21cfr11;

let requirementId: string;
let criticalId: string;

describe('honest scores (docs/scoring.md)', () => {
  test('one completed, validated requirement against 17 clauses is not "compliant, 100"', async () => {
    const created = await call('/v1/requirements', {
      method: 'POST',
      json: {
        title: 'Audit trail of record changes',
        description: 'The system shall keep a secure, time-stamped audit trail of every change to electronic records.',
        framework: 'fda21cfr11',
        priority: 'high',
        acceptanceCriteria: ['Every create, update and delete writes an audit entry with user and timestamp'],
      },
    });
    expect(created.status).toBe(201);
    requirementId = created.body.id;
    await call(`/v1/requirements/${requirementId}`, { method: 'PUT', json: { status: 'completed' } });
    const validation = (await call(`/v1/requirements/${requirementId}/validate`, { method: 'POST' })).body;
    expect(validation.complianceMapping.fda21cfr11).toContain('11.10(e)');

    const fw = await part11();
    expect(fw.scoring.coverage).toEqual({ clauses: 17, covered: validation.complianceMapping.fda21cfr11.length, percent: expect.any(Number) });
    expect(fw.scoring.implementation).toBe(100);
    expect(fw.scoring.validation).toBe(validation.valid ? 100 : 0);
    expect(fw.scoring.findings).toEqual({ open: { critical: 0, high: 0, medium: 0, low: 0 }, penalty: 0, cap: null });
    expectScoreByModel(fw);
    expect(fw.score).toBeLessThan(70);
    expect(fw.status).not.toBe('compliant');
  });

  test('an open high finding lowers the score and caps it below mostly-compliant; resolving it restores the score', async () => {
    const before = await part11();
    const high = await call('/v1/audits/findings', { method: 'POST', json: { title: 'Audit entries lack the old value', framework: 'fda21cfr11', severity: 'high', requirementId } });
    expect(high.status).toBe(201);
    const during = await part11();
    expect(during.scoring.findings).toEqual({ open: { critical: 0, high: 1, medium: 0, low: 0 }, penalty: 10, cap: 69.9 });
    expect(during.score).toBeLessThan(before.score);
    expectScoreByModel(during);

    const resolved = await call(`/v1/audits/findings/${high.body.id}`, { method: 'PATCH', json: { status: 'resolved', resolution: 'Old values are now stored in before/after' } });
    expect(resolved.status).toBe(200);
    expect((await part11()).score).toBe(before.score);
  });

  test('the parts appear in dashboard metrics and in GraphQL status', async () => {
    const metrics = (await call('/v1/dashboard/metrics')).body;
    const entry = metrics.compliance.frameworks.find((f: any) => f.name === 'fda21cfr11');
    expectScoreByModel(entry);
    expect(entry.scoring.coverage.clauses).toBe(17);
    const res = await gql(`{ complianceStatus(framework: "fda21cfr11") { frameworks { score scoring { coverage { clauses covered percent } implementation validation base findings { open { critical high medium low } penalty cap } } } } }`);
    expect(res.body.errors).toBeUndefined();
    expectScoreByModel(res.body.data.complianceStatus.frameworks[0]);
  });
});

describe('release gate', () => {
  test('passes when the score meets minScore and nothing critical is open', async () => {
    const score = (await part11()).score;
    const { status, body } = await call(`/v1/compliance/gate?framework=fda21cfr11&minScore=${Math.floor(score)}&maxOpenFindings=0`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ framework: 'fda21cfr11', result: 'pass', passed: true, reasons: [], score, thresholds: { minScore: Math.floor(score), maxOpenFindings: 0 } });
    expect(body.checks.map((c: any) => [c.name, c.passed])).toEqual([
      ['no-open-critical-findings', true],
      ['min-score', true],
      ['max-open-findings', true],
    ]);
  });

  test('fails on an open critical finding, whatever the thresholds, and says why', async () => {
    const critical = await call('/v1/audits/findings', {
      method: 'POST',
      json: { title: 'Signatures not linked to records', description: 'A signature can be copied to another record.', framework: 'fda21cfr11', severity: 'critical' },
    });
    expect(critical.status).toBe(201);
    criticalId = critical.body.id;
    const { status, body } = await call('/v1/compliance/gate?framework=fda21cfr11&minScore=0');
    expect(status).toBe(200);
    expect(body).toMatchObject({ result: 'fail', passed: false, openFindings: { critical: 1, total: 1 } });
    expect(body.reasons).toEqual(['1 critical finding is open']);
    expect(body.checks.find((c: any) => c.name === 'no-open-critical-findings')).toMatchObject({ passed: false, actual: 1, limit: 0 });
    expect(body.score).toBeLessThanOrEqual(39.9);
    expect(body.scoring.findings.cap).toBe(39.9);

    // The same answer on GraphQL and tRPC.
    const g = await gql(`query($f: String!) { complianceGate(framework: $f, minScore: 0) { result passed reasons score checks { name passed actual limit } openFindings { critical total } } }`, { f: 'fda21cfr11' });
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data.complianceGate).toMatchObject({ result: 'fail', passed: false, reasons: ['1 critical finding is open'], score: body.score });
    const t = await trpc('assurance.gate', { framework: 'fda21cfr11', minScore: 0 });
    expect(t.body.result.data).toMatchObject({ result: 'fail', reasons: ['1 critical finding is open'] });
  });

  test('fails on a low score and on too many open findings, with one reason each', async () => {
    const { body } = await call('/v1/compliance/gate?framework=fda21cfr11&minScore=99.5&maxOpenFindings=0');
    expect(body.result).toBe('fail');
    expect(body.reasons).toEqual([
      '1 critical finding is open',
      expect.stringMatching(/^Score [\d.]+ is below the minimum 99\.5$/),
      '1 open finding, more than the 0 allowed',
    ]);
    // Resolving the critical finding leaves only the score to decide.
    await call(`/v1/audits/findings/${criticalId}`, { method: 'PATCH', json: { status: 'resolved', resolution: 'Signatures now carry the record hash' } });
    const after = (await call('/v1/compliance/gate?framework=fda21cfr11&minScore=0&maxOpenFindings=0')).body;
    expect(after).toMatchObject({ result: 'pass', reasons: [] });
    // Without minScore the default (70, mostly-compliant) applies.
    const byDefault = (await call('/v1/compliance/gate?framework=fda21cfr11')).body;
    expect(byDefault.thresholds).toEqual({ minScore: 70, maxOpenFindings: null });
    expect(byDefault.result).toBe(byDefault.score >= 70 ? 'pass' : 'fail');
  });

  test('bad parameters are a 400 naming the field; an unknown framework is INVALID_FRAMEWORK', async () => {
    expect((await call('/v1/compliance/gate')).status).toBe(400);
    const unknown = await call('/v1/compliance/gate?framework=hipaa');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('INVALID_FRAMEWORK');
    for (const q of ['minScore=abc', 'minScore=101', 'maxOpenFindings=-1', 'maxOpenFindings=1.5', 'colour=red']) {
      const res = await call(`/v1/compliance/gate?framework=gdpr&${q}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  test('needs read:compliance', async () => {
    const without = await issueKey(gw, ['read:requirements']);
    const withIt = await issueKey(gw, ['read:compliance']);
    expect((await call('/v1/compliance/gate?framework=gdpr', { auth: null })).status).toBe(401);
    expect((await call('/v1/compliance/gate?framework=gdpr', { auth: without })).status).toBe(403);
    expect((await call('/v1/compliance/gate?framework=gdpr', { auth: withIt })).status).toBe(200);
    const g = await gql(`{ complianceGate(framework: "gdpr") { result } }`, {}, without);
    expect(g.body.errors[0].extensions.code).toBe('AUTHORIZATION_ERROR');
  });
});
