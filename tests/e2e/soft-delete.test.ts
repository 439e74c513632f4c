/**
 * Soft deletion (issue #19): a deleted requirement keeps its row, for the record, and no read or
 * change finds it again. The condition lives in one ORM filter on `Requirement` (and one SQL
 * fragment for the hand-written reads); the readers that must see deleted rows turn it off by name.
 */
import { okJson, sqlOf, useGateway, type TestGateway } from '../helpers/gateway';

const gw = useGateway();
const sql = sqlOf(gw);
const json = (path: string, init: Parameters<TestGateway['request']>[1] = {}) => okJson(gw, path, init);

const requirement = (title: string) => ({
  title,
  framework: 'gdpr',
  priority: 'high',
  description: 'Personal data is encrypted at rest and erased on request within 30 days.',
});

test('a requirement deleted earlier in the same GraphQL document is not found by the mutation after it', async () => {
  // Each mutation after the delete in its own document: a failed non-null root field ends the document.
  const after = {
    upd: ['updateRequirement(id: $id, input: {title: "Brought back"}) { id }', 'NOT_FOUND'],
    val: ['validateRequirement(id: $id) { valid }', 'NOT_FOUND'],
    fnd: ['createFinding(input: {title: "Linked to a deleted one", framework: GDPR, severity: LOW, requirementId: $id}) { id }', 'VALIDATION_ERROR'],
  };
  for (const [alias, [field, code]] of Object.entries(after)) {
    const doomed = await json('/v1/requirements', { method: 'POST', json: requirement('Deleted then touched') });
    const res = await gw.request('/graphql', {
      method: 'POST',
      json: { query: `mutation($id: String!) { del: deleteRequirement(id: $id) { deleted } ${alias}: ${field} }`, variables: { id: doomed.id } },
    });
    const body = (await res.json()) as { errors?: { path: string[]; extensions: { code: string } }[] };
    expect(body.errors?.map((e) => [e.path[0], e.extensions.code])).toEqual([[alias, code]]);

    const [row] = await sql('select title, deleted_at is not null as deleted, validation from requirements where id = ?', [doomed.id]);
    expect(row).toEqual({ title: 'Deleted then touched', deleted: true, validation: null });
    expect(await sql('select 1 from audit_findings where requirement_id = ?', [doomed.id])).toEqual([]);
  }
});

test('a deleted requirement is kept in its table, and left out of every read and change', async () => {
  const kept = await json('/v1/requirements', { method: 'POST', json: requirement('Kept requirement') });
  const gone = await json('/v1/requirements', { method: 'POST', json: requirement('Deleted requirement') });
  const listed = async () => (await json('/v1/requirements?framework=gdpr&limit=500')) as { data: { id: string }[]; pagination: { total: number } };
  const before = await listed();
  expect(before.data.map((r) => r.id)).toEqual(expect.arrayContaining([kept.id, gone.id]));

  expect((await gw.request(`/api/requirements/${gone.id}`, { method: 'DELETE' })).status).toBe(200);

  // Reads: the page and its total (hand-written SQL), a detail, the traceability matrix (ORM).
  const after = await listed();
  expect(after.data.map((r) => r.id)).toContain(kept.id);
  expect(after.data.map((r) => r.id)).not.toContain(gone.id);
  expect(after.pagination.total).toBe(before.pagination.total - 1);
  expect((await gw.request(`/v1/requirements/${gone.id}`)).status).toBe(404);
  const matrix = await json('/v1/compliance/traceability?framework=gdpr');
  const traced = new Set([...matrix.clauses.flatMap((c: any) => c.requirements), ...matrix.unmappedRequirements].map((r: any) => r.id));
  expect(traced.has(kept.id)).toBe(true);
  expect(traced.has(gone.id)).toBe(false);

  // Changes: one by one and in batches.
  expect((await gw.request(`/v1/requirements/${gone.id}`, { method: 'PUT', json: { status: 'completed' } })).status).toBe(404);
  expect((await gw.request(`/v1/requirements/${gone.id}/validate`, { method: 'POST' })).status).toBe(404);
  expect((await gw.request(`/api/requirements/${gone.id}`, { method: 'DELETE' })).status).toBe(404);
  const batch = await json('/v1/requirements/batch', {
    method: 'PATCH',
    json: {
      updates: [
        { id: gone.id, status: 'completed' },
        { id: kept.id, status: 'in-progress' },
      ],
    },
  });
  expect(batch.updated).toEqual([{ id: kept.id, status: 'in-progress' }]);
  expect(batch.errors).toEqual([{ index: 0, id: gone.id, message: expect.stringMatching(/not found/) }]);
  const validated = await json('/api/validate/batch', { method: 'POST', json: { requirementIds: [gone.id, kept.id] } });
  expect(validated.results.map((r: any) => r.requirementId)).toEqual([kept.id]);
  expect(validated.errors).toEqual([{ requirementId: gone.id, message: expect.stringMatching(/not found/) }]);
  const finding = await gw.request('/v1/audits/findings', {
    method: 'POST',
    json: { title: 'On a deleted requirement', framework: 'gdpr', severity: 'low', requirementId: gone.id },
  });
  expect(finding.status).toBe(400);

  // The row is still there, unchanged by the refused changes.
  const [row] = await sql('select title, status, deleted_at is not null as deleted, validation from requirements where id = ?', [gone.id]);
  expect(row).toEqual({ title: 'Deleted requirement', status: 'pending', deleted: true, validation: null });
});

test('the clause backfill turns the filter off: deleted requirements are mapped too', async () => {
  const gone = await json('/v1/requirements', { method: 'POST', json: requirement('Deleted before its clauses were mapped') });
  await gw.request(`/api/requirements/${gone.id}`, { method: 'DELETE' });
  const [{ clauses }] = await sql('select clauses from requirements where id = ?', [gone.id]);
  expect(clauses.length).toBeGreaterThan(0);
  await sql('update requirements set clauses = null where id = ?', [gone.id]);
  expect(await gw.services.complianceUpkeep.backfillClauses()).toBeGreaterThanOrEqual(1);
  expect((await sql('select clauses from requirements where id = ?', [gone.id]))[0].clauses).toEqual(clauses);
});
