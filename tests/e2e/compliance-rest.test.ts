import { callJson, useGateway, type TestGateway } from '../helpers/gateway';

const gw = useGateway();

const call = (path: string, init?: Parameters<TestGateway['request']>[1]) => callJson(gw, path, init);
const post = (path: string, json: unknown) => call(path, { method: 'POST', json });
const put = (path: string, json: unknown) => call(path, { method: 'PUT', json });
const patch = (path: string, json: unknown) => call(path, { method: 'PATCH', json });

const good = (over: Record<string, unknown> = {}) => ({
  title: 'Audit trail for electronic records',
  description: 'The system shall record an audit trail of every change to electronic records.',
  framework: 'fda21cfr11',
  category: 'audit-trail',
  priority: 'high',
  acceptanceCriteria: ['Every create, update and delete writes an audit entry with user and timestamp'],
  ...over,
});

const LIST_KEYS = ['createdAt', 'description', 'framework', 'id', 'priority', 'status', 'title', 'updatedAt'];

describe('requirements', () => {
  let id: string;

  test('create answers 201 with status pending and timestamps', async () => {
    const { status, body } = await post('/v1/requirements', good({ technicalContext: { scope: 'records', relatedComponents: ['db'] } }));
    expect(status).toBe(201);
    expect(body.id).toMatch(/^req_/);
    expect(body.status).toBe('pending');
    expect(body.priority).toBe('high');
    expect(body.technicalContext).toEqual({ scope: 'records', relatedComponents: ['db'] });
    expect(body.validation).toBeNull();
    expect(new Date(body.createdAt).toISOString()).toBe(body.createdAt);
    expect(body.updatedAt).toBe(body.createdAt);
    id = body.id;
  });

  test('create ignores a client-given status: requirements always start pending', async () => {
    const { status, body } = await post('/v1/requirements', good({ status: 'completed', title: 'Starts pending' }));
    expect(status).toBe(201);
    expect(body.status).toBe('pending');
  });

  test('detail has all fields', async () => {
    const { status, body } = await call(`/v1/requirements/${id}`);
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['acceptanceCriteria', 'category', 'implementation', 'technicalContext', 'validation', ...LIST_KEYS].sort());
    expect(body.category).toBe('audit-trail');
  });

  test('unknown requirement → 404 NOT_FOUND in the integration envelope', async () => {
    const { status, body } = await call('/v1/requirements/req_nope');
    expect(status).toBe(404);
    expect(body.error.code).toBe('NOT_FOUND');
    expect(typeof body.error.requestId).toBe('string');
    expect(Array.isArray(body.error.details)).toBe(true);
  });

  test('VALIDATION_ERROR lists fields and carries the requestId', async () => {
    const res = await gw.request('/v1/requirements', {
      method: 'POST',
      json: { framework: 'gdpr', priority: 'urgent' },
      headers: { 'x-request-id': 'req-abc-123' },
    });
    const body: any = await res.json();
    expect(res.status).toBe(400);
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.requestId).toBe('req-abc-123');
    const fields = body.error.details.map((d: any) => d.field).sort();
    expect(fields).toEqual(['priority', 'title']);
    for (const d of body.error.details) expect(typeof d.message).toBe('string');
  });

  test('unknown framework → 400 INVALID_FRAMEWORK with details.supportedFrameworks (body, query, path)', async () => {
    const expected = ['iso13485', 'fda21cfr11', 'gdpr', 'soc2'];
    for (const r of [
      await post('/v1/requirements', good({ framework: 'hipaa' })),
      await call('/v1/requirements?framework=hipaa'),
      await call('/v1/compliance/status?framework=hipaa'),
      await call('/v1/frameworks/hipaa'),
      await call('/v1/audits/findings?framework=hipaa'),
      await put(`/v1/requirements/${id}`, { framework: 'hipaa' }),
      await call('/api/compliance/hipaa'),
    ]) {
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('INVALID_FRAMEWORK');
      expect(r.body.error.details.supportedFrameworks).toEqual(expected);
      expect(typeof r.body.error.requestId).toBe('string');
    }
  });

  test('non-JSON body → 415 in the integration envelope', async () => {
    const res = await gw.request('/v1/requirements', { method: 'POST', body: 'title=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(415);
    expect(((await res.json()) as any).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  test('PUT is a partial update; completing stamps implementation.completedAt, reopening clears it', async () => {
    const a = await put(`/v1/requirements/${id}`, { implementation: { testFile: 'tests/audit.test.ts' } });
    expect(a.status).toBe(200);
    expect(a.body.title).toBe(good().title);
    expect(a.body.implementation).toEqual({ testFile: 'tests/audit.test.ts' });
    expect(new Date(a.body.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(a.body.createdAt).getTime());

    const b = await put(`/v1/requirements/${id}`, { status: 'completed', implementation: { gitBranch: 'feat/audit' } });
    expect(b.body.status).toBe('completed');
    expect(b.body.implementation.testFile).toBe('tests/audit.test.ts');
    expect(b.body.implementation.gitBranch).toBe('feat/audit');
    expect(Date.parse(b.body.implementation.completedAt)).toBeGreaterThan(Date.now() - 60_000);

    const c = await put(`/v1/requirements/${id}`, { status: 'in-progress' });
    expect(c.body.status).toBe('in-progress');
    expect(c.body.implementation.completedAt).toBeNull();

    const given = '2026-01-02T03:04:05.000Z';
    const d = await put(`/v1/requirements/${id}`, { status: 'completed', implementation: { completedAt: given } });
    expect(d.body.implementation.completedAt).toBe(given);
  });

  test('PUT with nothing updatable or bad values → VALIDATION_ERROR', async () => {
    const empty = await put(`/v1/requirements/${id}`, {});
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('VALIDATION_ERROR');
    const bad = await put(`/v1/requirements/${id}`, { status: 'done', priority: 'urgent' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: any) => d.field).sort()).toEqual(['priority', 'status']);
    expect((await put('/v1/requirements/req_missing', { status: 'pending' })).status).toBe(404);
  });

  test('validate stores the result and exposes it through GET /api/validate/{id}', async () => {
    const { status, body } = await post(`/v1/requirements/${id}/validate`, undefined);
    expect(status).toBe(200);
    expect(typeof body.valid).toBe('boolean');
    expect(typeof body.score).toBe('number');
    expect(Array.isArray(body.issues)).toBe(true);
    expect(Array.isArray(body.suggestions)).toBe(true);
    expect(typeof body.complianceMapping).toBe('object');
    const detail = await call(`/v1/requirements/${id}`);
    expect(detail.body.validation.status).toBe(body.valid ? 'passed' : 'failed');
    expect(detail.body.validation.score).toBe(body.score);
    const latest = await call(`/api/validate/${id}`);
    expect(latest.status).toBe(200);
    expect(latest.body).toEqual({ requirementId: id, validation: detail.body.validation });
    expect((await post('/v1/requirements/req_missing/validate', undefined)).status).toBe(404);
  });
});

describe('listing', () => {
  const ids: string[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 5; i++) {
      const { body } = await post('/v1/requirements', good({ title: `Listing ${i}`, framework: 'soc2', priority: i % 2 ? 'low' : 'critical' }));
      ids.push(body.id);
    }
    await put(`/v1/requirements/${ids[0]}`, { status: 'completed' });
  });

  test('envelope, subset fields, newest first, pagination and hasMore', async () => {
    const p1 = await call('/v1/requirements?framework=soc2&limit=2');
    expect(p1.status).toBe(200);
    expect(p1.body.pagination).toEqual({ total: 5, limit: 2, offset: 0, hasMore: true });
    expect(p1.body.data.map((r: any) => r.id)).toEqual([ids[4], ids[3]]);
    expect(Object.keys(p1.body.data[0]).sort()).toEqual(LIST_KEYS);
    const p3 = await call('/v1/requirements?framework=soc2&limit=2&offset=4');
    expect(p3.body.pagination).toEqual({ total: 5, limit: 2, offset: 4, hasMore: false });
    expect(p3.body.data.map((r: any) => r.id)).toEqual([ids[0]]);
    const all = await call('/v1/requirements?framework=soc2');
    expect(all.body.pagination.limit).toBe(50);
    expect(all.body.data.map((r: any) => r.id)).toEqual([...ids].reverse());
  });

  test('filters by status and priority', async () => {
    const done = await call('/v1/requirements?framework=soc2&status=completed');
    expect(done.body.data.map((r: any) => r.id)).toEqual([ids[0]]);
    const low = await call('/v1/requirements?framework=soc2&priority=low');
    expect(low.body.pagination.total).toBe(2);
  });

  test('limit above 500, below 1 or not a number, and bad status → VALIDATION_ERROR naming the field', async () => {
    for (const [q, field] of [
      ['limit=501', 'limit'],
      ['limit=0', 'limit'],
      ['limit=abc', 'limit'],
      ['offset=-1', 'offset'],
      ['status=done', 'status'],
    ]) {
      const r = await call(`/v1/requirements?${q}`);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
      expect(r.body.error.details[0].field).toBe(field);
    }
    expect((await call('/v1/requirements?limit=500')).status).toBe(200);
  });

  test('soft delete hides the requirement from every read', async () => {
    const del = await call(`/api/requirements/${ids[1]}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: ids[1], deleted: true });
    expect((await call(`/v1/requirements/${ids[1]}`)).status).toBe(404);
    expect((await call(`/api/requirements/${ids[1]}`)).status).toBe(404);
    expect((await put(`/v1/requirements/${ids[1]}`, { status: 'completed' })).status).toBe(404);
    expect((await call(`/api/requirements/${ids[1]}`, { method: 'DELETE' })).status).toBe(404);
    const list = await call('/v1/requirements?framework=soc2');
    expect(list.body.pagination.total).toBe(4);
    expect(list.body.data.map((r: any) => r.id)).not.toContain(ids[1]);
  });
});

describe('batch operations', () => {
  test('batch create reports invalid items by index and field, creating the rest', async () => {
    const { status, body } = await post('/v1/requirements/batch', {
      requirements: [
        { title: 'Batch one', framework: 'gdpr', priority: 'high' },
        { framework: 'gdpr' },
        { title: 'Batch three', framework: 'hipaa' },
        { title: 'Batch four', framework: 'iso13485', priority: 'low' },
      ],
    });
    expect(status).toBe(200);
    expect(body.created).toHaveLength(2);
    expect(body.created[0]).toEqual({ id: expect.stringMatching(/^req_/), title: 'Batch one', status: 'created' });
    expect(body.errors).toEqual([
      { index: 1, field: 'title', message: expect.any(String) },
      { index: 2, field: 'framework', message: expect.stringContaining('supported') },
    ]);
    const stored = await call(`/v1/requirements/${body.created[1].id}`);
    expect(stored.body).toMatchObject({ title: 'Batch four', framework: 'iso13485', status: 'pending' });
  });

  test('batch create of more than 100 items or no list → VALIDATION_ERROR', async () => {
    const many = Array.from({ length: 101 }, (_, i) => ({ title: `t${i}`, framework: 'gdpr' }));
    const r = await post('/v1/requirements/batch', { requirements: many });
    expect(r.status).toBe(400);
    expect(r.body.error.details[0].field).toBe('requirements');
    expect((await post('/v1/requirements/batch', {})).status).toBe(400);
  });

  test('batch status update reports unknown ids and bad statuses per item', async () => {
    const a = (await post('/v1/requirements', good({ title: 'Batch status A', framework: 'gdpr' }))).body.id;
    const b = (await post('/v1/requirements', good({ title: 'Batch status B', framework: 'gdpr' }))).body.id;
    const { status, body } = await patch('/v1/requirements/batch', {
      updates: [
        { id: a, status: 'completed' },
        { id: 'req_missing', status: 'completed' },
        { id: b, status: 'finished' },
        { id: b, status: 'in-progress' },
      ],
    });
    expect(status).toBe(200);
    expect(body.updated).toEqual([
      { id: a, status: 'completed' },
      { id: b, status: 'in-progress' },
    ]);
    expect(body.errors).toEqual([
      { index: 1, id: 'req_missing', message: expect.stringContaining('not found') },
      { index: 2, id: b, message: expect.stringContaining('status') },
    ]);
    expect((await call(`/v1/requirements/${a}`)).body.implementation.completedAt).toEqual(expect.any(String));
    const tooMany = await patch('/v1/requirements/batch', { updates: Array.from({ length: 101 }, () => ({ id: a, status: 'pending' })) });
    expect(tooMany.status).toBe(400);
  });
});

describe('compliance status', () => {
  test('weighted score, status thresholds and counts per framework', async () => {
    // iso13485 only has "Batch four" (low, pending) so far; add a critical completed one: implementation (4*1 + 1*0)/(4+1) = 80.
    // Their text maps to one of ISO 13485's 48 clauses and neither is validated, so by docs/scoring.md the score is
    // 0.5·(100·1/48) + 0.3·80 + 0.2·0 = 25.0: two requirements covering one clause are not "mostly compliant".
    const c = (await post('/v1/requirements', good({ title: 'ISO critical', framework: 'iso13485', priority: 'critical' }))).body.id;
    await put(`/v1/requirements/${c}`, { status: 'completed' });
    const { status, body } = await call('/v1/compliance/status?framework=iso13485');
    expect(status).toBe(200);
    expect(Object.keys(body.frameworks)).toEqual(['iso13485']);
    expect(body.frameworks.iso13485).toMatchObject({
      score: 25,
      status: 'non-compliant',
      requirements: { total: 2, completed: 1, inProgress: 0, pending: 1 },
      scoring: { coverage: { clauses: 48, covered: 1, percent: 2.1 }, implementation: 80, validation: 0, base: 25, findings: { penalty: 0, cap: null } },
    });
    expect(Date.parse(body.frameworks.iso13485.lastAssessment)).toBeGreaterThan(Date.now() - 60_000);
    expect(typeof body.overallScore).toBe('number');

    const all = await call('/v1/compliance/status');
    expect(Object.keys(all.body.frameworks).sort()).toEqual(['fda21cfr11', 'gdpr', 'iso13485', 'soc2']);
    expect(all.body.overallScore).toBe(body.overallScore);

    const short = await call('/api/compliance/iso13485');
    expect(short.status).toBe(200);
    expect(short.body).toMatchObject({ framework: 'iso13485', score: 25, status: 'non-compliant', scoring: { implementation: 80 } });
  });

  test('a change that moves a score publishes compliance.score_changed after commit and writes history', async () => {
    const seen: any[] = [];
    const off = gw.services.bus.subscribe('compliance', (e) => seen.push(e));
    try {
      const r = (await post('/v1/requirements', good({ title: 'Moves GDPR', framework: 'gdpr', priority: 'critical' }))).body.id;
      await put(`/v1/requirements/${r}`, { status: 'completed' });
      const types = seen.map((e) => e.type);
      expect(types).toEqual(expect.arrayContaining(['requirement.created', 'requirement.updated', 'user.activity', 'compliance.score_changed']));
      const changed = seen.filter((e) => e.type === 'compliance.score_changed' && e.data.framework === 'gdpr').pop();
      expect(changed.data.score).toBeGreaterThan(changed.data.previousScore);
      expect(typeof changed.data.status).toBe('string');
    } finally {
      off();
    }
    const em = gw.db.orm.em.fork();
    const rows = await em.getConnection().execute(`select count(*)::int as n from metric_snapshots where framework = 'gdpr'`);
    expect(rows[0].n).toBeGreaterThan(1);
    const acts = await em.getConnection().execute(`select count(*)::int as n from activity_log where type like 'requirement.%'`);
    expect(acts[0].n).toBeGreaterThan(5);
  });

  // Issue #12: an assessment whose numbers equal a snapshot of the last minute moves that snapshot to
  // now instead of adding one (a flood of assessments must not flood history); either way the
  // assessment is in history with its time.
  test('POST /api/compliance/{framework}/assess records the assessment in history and returns the status', async () => {
    const em = gw.db.orm.em.fork();
    const count = async () => (await em.getConnection().execute(`select count(*)::int as n from metric_snapshots where framework = 'soc2'`))[0].n;
    const latest = async () =>
      new Date((await em.getConnection().execute(`select max(taken_at) as at from metric_snapshots where framework = 'soc2'`))[0].at).getTime();
    const before = await count();
    const started = Date.now();
    const r = await post('/api/compliance/soc2/assess', undefined);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ framework: 'soc2', requirements: { total: 4 } });
    expect(await count()).toBeGreaterThanOrEqual(Math.max(before, 1));
    expect(await count()).toBeLessThanOrEqual(before + 1);
    expect(await latest()).toBeGreaterThanOrEqual(started - 1000);
  });
});

describe('frameworks', () => {
  test('list and detail', async () => {
    const list = await call('/v1/frameworks');
    expect(list.status).toBe(200);
    expect(list.body.data.map((f: any) => f.id)).toEqual(['iso13485', 'fda21cfr11', 'gdpr', 'soc2']);
    for (const f of list.body.data) {
      expect(f).toEqual({
        id: expect.any(String),
        name: expect.any(String),
        description: expect.any(String),
        version: expect.any(String),
        categories: expect.any(Array),
        requirementCount: expect.any(Number),
        supported: true,
      });
    }
    const detail = await call('/v1/frameworks/gdpr');
    expect(detail.status).toBe(200);
    expect(detail.body.requirements).toHaveLength(detail.body.requirementCount);
    expect(Object.keys(detail.body.requirements[0]).sort()).toEqual(['description', 'id', 'section', 'title']);
    expect(detail.body.validationRules.length).toBeGreaterThan(0);
    expect(Object.keys(detail.body.validationRules[0]).sort()).toEqual(['description', 'id', 'name']);
    const short = await call('/api/compliance/frameworks');
    expect(short.body).toEqual(list.body);
  });
});

describe('audit findings', () => {
  let reqId: string;
  let findingId: string;
  beforeAll(async () => {
    reqId = (await post('/v1/requirements', good({ title: 'Has findings', framework: 'soc2' }))).body.id;
  });

  test('create → 201 with status open and evidence', async () => {
    const { status, body } = await post('/v1/audits/findings', {
      title: 'Missing access review',
      description: 'Quarterly access reviews were not performed',
      framework: 'soc2',
      severity: 'high',
      requirementId: reqId,
      evidence: ['ticket-1'],
      dueDate: '2027-01-31',
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      framework: 'soc2',
      severity: 'high',
      status: 'open',
      requirementId: reqId,
      evidence: ['ticket-1'],
      resolution: null,
      resolvedAt: null,
    });
    expect(body.dueDate).toBe('2027-01-31T00:00:00.000Z');
    expect(Date.parse(body.discoveredAt)).toBeGreaterThan(0);
    findingId = body.id;
  });

  test('create validates the requirement reference and fields', async () => {
    const missing = await post('/v1/audits/findings', { title: 'x', framework: 'soc2', severity: 'low', requirementId: 'req_missing' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual([{ field: 'requirementId', message: expect.stringContaining('not found') }]);
    const mismatch = await post('/v1/audits/findings', { title: 'x', framework: 'gdpr', severity: 'low', requirementId: reqId });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.details[0].field).toBe('framework');
    const bad = await post('/v1/audits/findings', { title: '', framework: 'soc2', severity: 'severe' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: any) => d.field).sort()).toEqual(['severity', 'title']);
  });

  test('list filters', async () => {
    await post('/v1/audits/findings', { title: 'Low GDPR finding', framework: 'gdpr', severity: 'low' });
    const soc2 = await call('/v1/audits/findings?framework=soc2');
    expect(soc2.status).toBe(200);
    expect(soc2.body.data.map((f: any) => f.id)).toEqual([findingId]);
    expect((await call('/v1/audits/findings?severity=low')).body.data.map((f: any) => f.title)).toEqual(['Low GDPR finding']);
    expect((await call('/v1/audits/findings?status=resolved')).body.data).toEqual([]);
    const page = await call('/v1/audits/findings?limit=1');
    expect(page.body.pagination).toEqual({ total: 2, limit: 1, offset: 0, hasMore: true });
    expect((await call('/v1/audits/findings?severity=severe')).status).toBe(400);
  });

  test('resolving needs a resolution, stamps resolvedAt and appends evidence; reopening clears both', async () => {
    const noText = await patch(`/v1/audits/findings/${findingId}`, { status: 'resolved' });
    expect(noText.status).toBe(400);
    expect(noText.body.error.details[0].field).toBe('resolution');

    const ok = await patch(`/v1/audits/findings/${findingId}`, { status: 'resolved', resolution: 'Reviews scheduled', evidence: ['ticket-2', 'ticket-1'] });
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('resolved');
    expect(ok.body.resolution).toBe('Reviews scheduled');
    expect(Date.parse(ok.body.resolvedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(ok.body.evidence).toEqual(['ticket-1', 'ticket-2']);

    const at = '2026-03-01T10:00:00.000Z';
    const stamped = await patch(`/v1/audits/findings/${findingId}`, { status: 'resolved', resolvedAt: at });
    expect(stamped.body.resolvedAt).toBe(at);

    const reopened = await patch(`/v1/audits/findings/${findingId}`, { status: 'in-progress' });
    expect(reopened.body).toMatchObject({ status: 'in-progress', resolution: null, resolvedAt: null });

    const early = await patch(`/v1/audits/findings/${findingId}`, { resolvedAt: at });
    expect(early.status).toBe(400);
    expect(early.body.error.details[0].field).toBe('resolvedAt');
    expect((await patch('/v1/audits/findings/fnd_missing', { status: 'open' })).status).toBe(404);
  });
});

describe('short /api listing', () => {
  test('requirements CRUD on the same domain operations', async () => {
    const created = await post('/api/requirements', good({ title: 'Short listing', framework: 'gdpr' }));
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await call(`/api/requirements/${id}`)).body.title).toBe('Short listing');
    const updated = await put(`/api/requirements/${id}`, { priority: 'low' });
    expect(updated.body.priority).toBe('low');
    const list = await call('/api/requirements?framework=gdpr&limit=1');
    expect(list.body.data[0].id).toBe(id);
    expect(list.body.pagination.hasMore).toBe(true);
    expect((await call('/v1/requirements/' + id)).body.priority).toBe('low');
  });

  test('POST /api/validate inline (nothing stored) and by requirementId (stored)', async () => {
    const inline = await post('/api/validate', { title: 'Users should be able to export data quickly', framework: 'gdpr' });
    expect(inline.status).toBe(200);
    expect(typeof inline.body.valid).toBe('boolean');
    expect(inline.body.issues.length).toBeGreaterThan(0);
    const badInline = await post('/api/validate', { title: 'x', framework: 'hipaa' });
    expect(badInline.body.error.code).toBe('INVALID_FRAMEWORK');
    const id = (await post('/api/requirements', good({ title: 'Validate by id', framework: 'fda21cfr11' }))).body.id;
    expect((await call(`/api/validate/${id}`)).body.validation).toBeNull();
    const byId = await post('/api/validate', { requirementId: id });
    expect(byId.status).toBe(200);
    expect((await call(`/api/validate/${id}`)).body.validation.score).toBe(byId.body.score);
    expect((await post('/api/validate', { requirementId: 'req_missing' })).status).toBe(404);
  });

  test('POST /api/validate/batch validates each id and reports unknown ones', async () => {
    const a = (await post('/api/requirements', good({ title: 'Batch validate A' }))).body.id;
    const { status, body } = await post('/api/validate/batch', { requirementIds: [a, 'req_missing'] });
    expect(status).toBe(200);
    expect(body.results).toHaveLength(1);
    expect(body.results[0]).toMatchObject({ requirementId: a, valid: expect.any(Boolean), score: expect.any(Number) });
    expect(body.errors).toEqual([{ requirementId: 'req_missing', message: expect.stringContaining('not found') }]);
    expect((await call(`/api/validate/${a}`)).body.validation).not.toBeNull();
    const tooMany = await post('/api/validate/batch', { requirementIds: Array.from({ length: 101 }, (_, i) => `req_${i}`) });
    expect(tooMany.status).toBe(400);
  });
});

test('every compliance path is in the OpenAPI document with its permission', async () => {
  const doc: any = await (await gw.request('/api/openapi.json')).json();
  for (const [path, method, permission] of [
    ['/v1/requirements', 'get', 'read:requirements'],
    ['/v1/requirements/{id}/validate', 'post', 'write:requirements'],
    ['/v1/requirements/batch', 'patch', 'write:requirements'],
    ['/v1/audits/findings/{id}', 'patch', 'write:audits'],
    ['/v1/auth/api-keys', 'post', 'manage:api-keys'],
    ['/api/compliance/{framework}/assess', 'post', 'write:compliance'],
    ['/api/validate/batch', 'post', 'write:requirements'],
  ]) {
    expect(doc.paths[path]?.[method]?.['x-permission']).toBe(permission);
  }
  const listParams = doc.paths['/v1/requirements'].get.parameters.map((p: any) => p.name);
  expect(listParams).toEqual(expect.arrayContaining(['framework', 'status', 'limit', 'offset']));
  expect(doc.paths['/v1/requirements'].post.requestBody.content['application/json'].schema.properties.title).toBeDefined();
});
