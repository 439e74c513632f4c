import { callJson, issueKey, useGateway, type TestGateway } from '../helpers/gateway';
import { parseCsv } from '../helpers/csv';
import { expectScoreByModel } from '../helpers/scoring';

/**
 * Honest scores and the release gate over real HTTP: coverage of the catalogue, requirement
 * status, validation and open findings all move the score (docs/scoring.md); the gate answers
 * pass or fail with reasons on REST, GraphQL and tRPC.
 */
const gw = useGateway();

const call = (path: string, init?: Parameters<TestGateway['request']>[1]) => callJson(gw, path, init);
const gql = (query: string, variables: Record<string, unknown> = {}, auth?: string) =>
  call('/graphql', { method: 'POST', json: { query, variables }, ...(auth ? { auth } : {}) });
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
    const high = await call('/v1/audits/findings', {
      method: 'POST',
      json: { title: 'Audit entries lack the old value', framework: 'fda21cfr11', severity: 'high', requirementId },
    });
    expect(high.status).toBe(201);
    const during = await part11();
    expect(during.scoring.findings).toEqual({ open: { critical: 0, high: 1, medium: 0, low: 0 }, penalty: 10, cap: 69.9 });
    expect(during.score).toBeLessThan(before.score);
    expectScoreByModel(during);

    const resolved = await call(`/v1/audits/findings/${high.body.id}`, {
      method: 'PATCH',
      json: { status: 'resolved', resolution: 'Old values are now stored in before/after' },
    });
    expect(resolved.status).toBe(200);
    expect((await part11()).score).toBe(before.score);
  });

  test('the parts appear in dashboard metrics and in GraphQL status', async () => {
    const metrics = (await call('/v1/dashboard/metrics')).body;
    const entry = metrics.compliance.frameworks.find((f: any) => f.name === 'fda21cfr11');
    expectScoreByModel(entry);
    expect(entry.scoring.coverage.clauses).toBe(17);
    const res = await gql(
      `{ complianceStatus(framework: FDA21CFR11) { frameworks { score scoring { coverage { clauses covered percent } implementation validation base findings { open { critical high medium low } penalty cap } } } } }`,
    );
    expect(res.body.errors).toBeUndefined();
    expectScoreByModel(res.body.data.complianceStatus.frameworks[0]);
  });
});

describe('release gate', () => {
  test('passes when the score meets minScore and nothing critical is open', async () => {
    const score = (await part11()).score;
    const { status, body } = await call(`/v1/compliance/gate?framework=fda21cfr11&minScore=${Math.floor(score)}&maxOpenFindings=0`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      framework: 'fda21cfr11',
      result: 'pass',
      passed: true,
      reasons: [],
      score,
      thresholds: { minScore: Math.floor(score), maxOpenFindings: 0 },
    });
    expect(body.checks.map((c: any) => [c.name, c.passed])).toEqual([
      ['no-open-critical-findings', true],
      ['min-score', true],
      ['max-open-findings', true],
    ]);
  });

  test('fails on an open critical finding, whatever the thresholds, and says why', async () => {
    const critical = await call('/v1/audits/findings', {
      method: 'POST',
      json: {
        title: 'Signatures not linked to records',
        description: 'A signature can be copied to another record.',
        framework: 'fda21cfr11',
        severity: 'critical',
      },
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
    const g = await gql(
      `query($f: FrameworkId!) { complianceGate(framework: $f, minScore: 0) { result passed reasons score checks { name passed actual limit } openFindings { critical total } } }`,
      { f: 'FDA21CFR11' },
    );
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data.complianceGate).toMatchObject({ result: 'FAIL', passed: false, reasons: ['1 critical finding is open'], score: body.score });
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
    const g = await gql(`{ complianceGate(framework: GDPR) { result } }`, {}, without);
    expect(g.body.errors[0].extensions.code).toBe('AUTHORIZATION_ERROR');
  });
});

describe('traceability matrix', () => {
  let mapping: string[];
  let openId: string;

  test('every clause with its requirements, latest validation, findings and evidence; uncovered clauses are gaps', async () => {
    mapping = (await call(`/v1/requirements/${requirementId}/validate`, { method: 'POST' })).body.complianceMapping.fda21cfr11;
    const open = await call('/v1/audits/findings', {
      method: 'POST',
      json: {
        title: 'Trail export lacks time zone',
        description: 'Exported entries show local time only.',
        framework: 'fda21cfr11',
        severity: 'medium',
        requirementId,
        evidence: ['SOP-12 rev 3 «signed» ✓'],
      },
    });
    openId = open.body.id;
    await call(`/v1/requirements/${requirementId}`, {
      method: 'PUT',
      json: { implementation: { testFile: 'tests/e2e/audit-trail.test.ts', relatedIssues: ['#15'] } },
    });

    const { status, body } = await call('/v1/compliance/traceability?framework=fda21cfr11');
    expect(status).toBe(200);
    expect(body).toMatchObject({ framework: 'fda21cfr11', frameworkName: 'FDA 21 CFR Part 11', findingsIncluded: true });
    expect(body.clauses.map((c: any) => c.section)).toHaveLength(17);
    expect(body.summary).toMatchObject({ clauses: 17, covered: mapping.length, gaps: 17 - mapping.length, requirements: 1, unmappedRequirements: 0 });

    const trail = body.clauses.find((c: any) => c.section === '11.10(e)');
    expect(trail).toMatchObject({ clauseId: 'fda21cfr11-11.10e', title: 'Audit trail', covered: true });
    const [req] = trail.requirements;
    expect(req).toMatchObject({
      id: requirementId,
      status: 'completed',
      clauses: mapping,
      latestValidation: { status: expect.stringMatching(/^(passed|failed)$/), score: expect.any(Number) },
    });
    expect(req.openFindings).toEqual([
      expect.objectContaining({ id: openId, severity: 'medium', description: 'Exported entries show local time only.', evidence: ['SOP-12 rev 3 «signed» ✓'] }),
    ]);
    expect(req.resolvedFindings).toEqual([
      expect.objectContaining({
        severity: 'high',
        status: 'resolved',
        resolution: 'Old values are now stored in before/after',
        resolvedAt: expect.any(String),
      }),
    ]);
    expect(req.evidence).toEqual([
      { kind: 'finding', value: 'SOP-12 rev 3 «signed» ✓', findingId: openId },
      { kind: 'test-file', value: 'tests/e2e/audit-trail.test.ts', findingId: null },
      { kind: 'issue', value: '#15', findingId: null },
    ]);
    // The critical finding was not linked to a requirement: it is listed apart, not lost.
    expect(body.unlinkedFindings).toEqual([expect.objectContaining({ id: criticalId, severity: 'critical', status: 'resolved' })]);

    // An uncovered clause is a gap, in the clause list (no requirements) and in `gaps`.
    expect(mapping).not.toContain('11.300');
    expect(body.clauses.find((c: any) => c.section === '11.300')).toMatchObject({ covered: false, requirements: [] });
    expect(body.gaps).toContainEqual({ clauseId: 'fda21cfr11-11.300', section: '11.300', title: expect.any(String), category: expect.any(String) });
    expect(body.gaps).toHaveLength(17 - mapping.length);
  });

  test('CSV with ?format=csv or Accept: text/csv: one row per clause and requirement, gaps as rows', async () => {
    const parse = (text: string) => text.trimEnd().split('\r\n');
    for (const init of [
      { path: '/v1/compliance/traceability?framework=fda21cfr11&format=csv' },
      { path: '/v1/compliance/traceability?framework=fda21cfr11', headers: { accept: 'text/csv' } },
    ]) {
      const res = await gw.request(init.path, { headers: init.headers });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      const lines = parse(await res.text());
      expect(lines[0]).toBe(
        'row_type,clause,clause_title,covered,requirement_id,requirement_title,requirement_status,priority,validation_status,validation_score,validated_at,open_findings,resolved_findings,evidence',
      );
      // 17 clauses, and the critical finding linked to no requirement.
      expect(lines).toHaveLength(1 + 17 + 1);
      const trail = lines.find((l) => l.startsWith('clause,11.10(e),'))!;
      expect(trail).toContain(`,yes,${requirementId},Audit trail of record changes,completed,high,`);
      expect(trail).toContain(`${openId} (medium): Trail export lacks time zone`);
      expect(trail).toContain('finding: SOP-12 rev 3 «signed» ✓; test-file: tests/e2e/audit-trail.test.ts; issue: #15');
      expect(lines.find((l) => l.startsWith('clause,11.300,'))).toMatch(/^clause,11\.300,[^,]+,no,,,,,,,,,,$/);
      expect(lines.find((l) => l.startsWith('unlinked_finding,'))).toContain(`${criticalId} (critical, resolved `);
    }
    // JSON stays the default, and is what a client preferring it gets.
    const json = await gw.request('/v1/compliance/traceability?framework=fda21cfr11', { headers: { accept: 'application/json, text/csv;q=0.5' } });
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
  });

  test('the CSV holds what the JSON lists: every clause row, unmapped requirement and unlinked finding (issue 35)', async () => {
    const unmapped = await call('/v1/requirements', {
      method: 'POST',
      json: {
        title: 'Coffee machine descaling rota',
        description: 'The kitchen coffee machine is descaled every Friday.',
        framework: 'fda21cfr11',
        priority: 'low',
      },
    });
    expect(unmapped.status).toBe(201);
    const loose = await call('/v1/audits/findings', {
      method: 'POST',
      json: { title: 'Descaler stock low', description: 'Two packs left.', framework: 'fda21cfr11', severity: 'low', evidence: ['shelf photo'] },
    });
    expect(loose.status).toBe(201);

    const json = (await call('/v1/compliance/traceability?framework=fda21cfr11')).body;
    const res = await gw.request('/v1/compliance/traceability?framework=fda21cfr11&format=csv');
    const [header, ...rows] = parseCsv(await res.text());
    const col = (name: string) => header.indexOf(name);
    const pick = (type: string) => rows.filter((r) => r[col('row_type')] === type);
    expect(json.unmappedRequirements.map((r: any) => r.id)).toContain(unmapped.body.id);
    expect(json.unlinkedFindings.map((f: any) => f.id)).toEqual(expect.arrayContaining([criticalId, loose.body.id]));

    // Every clause × requirement pair, in the JSON's order; gaps as rows with no requirement.
    const clausePairs = json.clauses.flatMap((c: any) =>
      c.requirements.length ? c.requirements.map((r: any) => [c.section, c.title, 'yes', r.id]) : [[c.section, c.title, 'no', '']],
    );
    expect(pick('clause').map((r) => [r[col('clause')], r[col('clause_title')], r[col('covered')], r[col('requirement_id')]])).toEqual(clausePairs);
    // Requirements mapped to no clause, with their status, validation and findings.
    expect(
      pick('unmapped_requirement').map((r) => [
        r[col('requirement_id')],
        r[col('requirement_title')],
        r[col('requirement_status')],
        r[col('priority')],
        r[col('validation_status')],
      ]),
    ).toEqual(json.unmappedRequirements.map((r: any) => [r.id, r.title, r.status, r.priority, r.latestValidation?.status ?? 'not validated']));
    // Findings linked to no requirement: id, severity, title and evidence.
    const unlinked = pick('unlinked_finding');
    expect(unlinked).toHaveLength(json.unlinkedFindings.length);
    json.unlinkedFindings.forEach((f: any, i: number) => {
      const cell = unlinked[i][col(f.status === 'resolved' ? 'resolved_findings' : 'open_findings')];
      expect(cell.startsWith(`${f.id} (${f.severity}`)).toBe(true);
      expect(cell.endsWith(`: ${f.title}`)).toBe(true);
      expect(unlinked[i][col('evidence')]).toBe(f.evidence.map((e: string) => `finding: ${e}`).join('; '));
    });
    // Nothing else: every requirement and finding id of the JSON is in the CSV and the other way round.
    const ids = (text: string) => new Set(text.match(/\b(req|fnd)_[A-Za-z0-9]+/g) ?? []);
    const csvIds = ids(rows.map((r) => r.join(',')).join('\n'));
    const jsonIds = ids(JSON.stringify({ c: json.clauses, u: json.unmappedRequirements, f: json.unlinkedFindings }));
    expect([...csvIds].sort()).toEqual([...jsonIds].sort());
    expect(pick('clause').length + pick('unmapped_requirement').length + unlinked.length).toBe(rows.length);
  });

  test('the same matrix on GraphQL and tRPC', async () => {
    const g = await gql(
      `query($f: FrameworkId!) { traceability(framework: $f) { summary { clauses covered gaps } gaps { section } clauses { section covered requirements { id latestValidation { status } openFindings { id evidence } resolvedFindings { id resolution } evidence { kind value findingId } } } } }`,
      { f: 'FDA21CFR11' },
    );
    expect(g.body.errors).toBeUndefined();
    const rest = (await call('/v1/compliance/traceability?framework=fda21cfr11')).body;
    expect(g.body.data.traceability.summary).toEqual({ clauses: 17, covered: rest.summary.covered, gaps: rest.summary.gaps });
    expect(g.body.data.traceability.gaps.map((x: any) => x.section)).toEqual(rest.gaps.map((x: any) => x.section));
    const t = await trpc('assurance.traceability', { framework: 'fda21cfr11' });
    expect(t.body.result.data.clauses).toEqual(rest.clauses);
  });

  test('findings need read:audits as well; bad input is a 400', async () => {
    const complianceOnly = await issueKey(gw, ['read:compliance']);
    const res = await call('/v1/compliance/traceability?framework=fda21cfr11', { auth: complianceOnly });
    expect(res.status).toBe(200);
    expect(res.body.findingsIncluded).toBe(false);
    const req = res.body.clauses.find((c: any) => c.section === '11.10(e)').requirements[0];
    expect(req.openFindings).toEqual([]);
    expect(req.evidence.map((e: any) => e.kind)).toEqual(['test-file', 'issue']);
    expect((await call('/v1/compliance/traceability?framework=fda21cfr11', { auth: await issueKey(gw, ['read:audits']) })).status).toBe(403);
    expect((await call('/v1/compliance/traceability?framework=nope')).body.error.code).toBe('INVALID_FRAMEWORK');
    expect((await call('/v1/compliance/traceability?framework=gdpr&format=xml')).status).toBe(400);
    expect((await call('/v1/compliance/traceability')).status).toBe(400);
  });
});
