import type { EntityManager } from '@mikro-orm/postgresql';
import { contentOf } from '../../domain/audit/trail-rows';
import { callJson, issueKey, useGateway, type TestGateway } from '../helpers/gateway';

/**
 * The audit trail over real HTTP: every kind of change recorded with who, when and the values
 * before and after; rows sealed into a hash chain after commit; tampering found by verify.
 */
const gw = useGateway({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });

const call = (path: string, init?: Parameters<TestGateway['request']>[1]) => callJson(gw, path, init);

const sql = <T = any>(query: string, params: unknown[] = []): Promise<T> =>
  (gw.db.orm.em.fork() as unknown as EntityManager).getConnection().execute(query, params) as Promise<T>;

/** Entries of one record, oldest first. */
async function trailOf(entityId: string) {
  const { status, body } = await call(`/v1/audit-trail?id=${encodeURIComponent(entityId)}&limit=500`);
  expect(status).toBe(200);
  return (body.data as any[]).slice().reverse();
}

/** Waits until the sealer has chained every committed row. */
async function sealed() {
  await gw.services.auditTrail.sealNow();
  const { body } = await call('/v1/audit-trail/verify');
  expect(body.rows.unsealed).toBe(0);
  return body;
}

describe('every kind of change is recorded with before and after', () => {
  test('requirements: create, update, validate, delete, batch create, batch status', async () => {
    const created = await call('/v1/requirements', {
      method: 'POST',
      json: {
        title: 'Audit trail of record changes',
        framework: 'fda21cfr11',
        priority: 'high',
        acceptanceCriteria: ['Every change keeps the previous value'],
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await call(`/v1/requirements/${id}`, { method: 'PUT', json: { status: 'in-progress', title: 'Audit trail of every record change' } })).status).toBe(
      200,
    );
    expect((await call(`/v1/requirements/${id}/validate`, { method: 'POST' })).status).toBe(200);
    const batch = await call('/v1/requirements/batch', { method: 'POST', json: { requirements: [{ title: 'Batch one', framework: 'gdpr' }] } });
    const batchId = batch.body.created[0].id;
    expect((await call('/v1/requirements/batch', { method: 'PATCH', json: { updates: [{ id: batchId, status: 'completed' }] } })).status).toBe(200);
    expect((await call(`/api/requirements/${id}`, { method: 'DELETE' })).status).toBe(200);

    const entries = await trailOf(id);
    expect(entries.map((e) => e.action)).toEqual(['requirement.create', 'requirement.update', 'requirement.validate', 'requirement.delete']);
    for (const e of entries)
      expect(e).toMatchObject({
        keyId: 'admin',
        actor: 'admin',
        entityType: 'requirement',
        entityId: id,
        contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
    const [create, update, validate, remove] = entries;
    expect(create.before).toBeNull();
    expect(create.after).toMatchObject({
      id,
      title: 'Audit trail of record changes',
      status: 'pending',
      priority: 'high',
      acceptanceCriteria: ['Every change keeps the previous value'],
    });
    // Only what changed, each with its earlier value.
    expect(update.changedFields.sort()).toEqual(['status', 'title']);
    expect(update.before).toEqual({ status: 'pending', title: 'Audit trail of record changes' });
    expect(update.after).toEqual({ status: 'in-progress', title: 'Audit trail of every record change' });
    expect(validate.before).toEqual({ validation: null });
    expect(validate.after.validation).toMatchObject({ status: expect.stringMatching(/passed|failed/), score: expect.any(Number) });
    expect(remove.before).toEqual({ deletedAt: null });
    expect(remove.after).toEqual({ deletedAt: expect.any(String) });

    const batchEntries = await trailOf(batchId);
    expect(batchEntries.map((e) => e.action)).toEqual(['requirement.create', 'requirement.update']);
    expect(batchEntries[1].before).toMatchObject({ status: 'pending' });
    expect(batchEntries[1].after).toMatchObject({ status: 'completed' });
  });

  test('findings: create and update (resolution, evidence appended)', async () => {
    const f = await call('/v1/audits/findings', {
      method: 'POST',
      json: { title: 'Unsigned batch record', framework: 'fda21cfr11', severity: 'high', evidence: ['scan-1.pdf'] },
    });
    expect(f.status).toBe(201);
    const resolved = await call(`/v1/audits/findings/${f.body.id}`, {
      method: 'PATCH',
      json: { status: 'resolved', resolution: 'Signature workflow enforced', evidence: ['fix.pdf'] },
    });
    expect(resolved.status).toBe(200);
    const [create, update] = await trailOf(f.body.id);
    expect(create).toMatchObject({
      action: 'finding.create',
      before: null,
      after: expect.objectContaining({ title: 'Unsigned batch record', severity: 'high', status: 'open' }),
    });
    expect(update.action).toBe('finding.update');
    expect(update.before).toMatchObject({ status: 'open', resolution: null, resolvedAt: null, evidence: ['scan-1.pdf'] });
    expect(update.after).toMatchObject({
      status: 'resolved',
      resolution: 'Signature workflow enforced',
      resolvedAt: expect.any(String),
      evidence: ['scan-1.pdf', 'fix.pdf'],
    });
  });

  test('keys: issue and revoke record the key id, never its secret; the actor is the key that acted', async () => {
    const issued = await call('/v1/auth/api-keys', {
      method: 'POST',
      json: { name: 'issuer', permissions: ['manage:api-keys', 'write:requirements', 'read:requirements'] },
    });
    expect(issued.status).toBe(201);
    const issuer = issued.body;
    // A key named like the admin is still told apart by its key id.
    const child = await call('/v1/auth/api-keys', { method: 'POST', auth: issuer.key, json: { name: 'admin', permissions: ['read:requirements'] } });
    expect(child.status).toBe(201);
    expect((await call(`/v1/auth/api-keys/${child.body.id}`, { method: 'DELETE', auth: issuer.key })).status).toBe(200);

    const [issue, revoke] = await trailOf(child.body.id);
    expect(issue).toMatchObject({
      action: 'api_key.issue',
      keyId: issuer.id,
      actor: 'issuer',
      before: null,
      after: expect.objectContaining({ name: 'admin', permissions: ['read:requirements'], createdBy: issuer.id }),
    });
    expect(JSON.stringify(issue)).not.toContain(child.body.key);
    expect(revoke).toMatchObject({ action: 'api_key.revoke', keyId: issuer.id, before: { revokedAt: null }, after: { revokedAt: expect.any(String) } });

    const byKey = await call(`/v1/audit-trail?key=${issuer.id}`);
    expect(byKey.body.data.map((e: any) => e.action).sort()).toEqual(['api_key.issue', 'api_key.revoke']);
  });

  test('webhooks and reports: registration, deletion, request and completion', async () => {
    const hook = await call('/v1/webhooks', { method: 'POST', json: { url: 'http://127.0.0.1:9/hook', events: ['system.alert'] } });
    expect(hook.status).toBe(201);
    expect((await call(`/v1/webhooks/${hook.body.id}`, { method: 'DELETE' })).status).toBe(204);
    const hookTrail = await trailOf(hook.body.id);
    expect(hookTrail.map((e) => e.action)).toEqual(['webhook.create', 'webhook.delete']);
    expect(JSON.stringify(hookTrail)).not.toContain(hook.body.secret);

    const report = await call('/v1/compliance/reports', { method: 'POST', json: { framework: 'gdpr', format: 'json' } });
    expect(report.status).toBe(202);
    for (let i = 0; i < 100; i++) {
      if ((await call(`/v1/compliance/reports/${report.body.reportId}`)).body.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const reportTrail = await trailOf(report.body.reportId);
    expect(reportTrail.map((e) => e.action)).toEqual(['report.request', 'report.complete']);
    expect(reportTrail[0]).toMatchObject({ keyId: 'admin', after: expect.objectContaining({ framework: 'gdpr', format: 'json', status: 'generating' }) });
    expect(reportTrail[1]).toMatchObject({
      keyId: null,
      actor: 'system',
      before: { status: 'generating' },
      after: expect.objectContaining({ status: 'completed' }),
    });
  });
});

describe('the chain', () => {
  test('rows are sealed after commit into one unbroken chain, also under concurrent writers', async () => {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => call('/v1/requirements', { method: 'POST', json: { title: `Concurrent ${i}`, framework: 'soc2' } })),
    );
    const v = await sealed();
    expect(v).toMatchObject({ intact: true, problems: 0, firstBroken: null, oldestUnsealedAt: null });
    expect(v.rows.sealed).toBe(v.rows.total);
    expect(v.head.seq).toBe(v.rows.total);
    const seqs = (await sql<{ seq: string }[]>('select seq from audit_trail order by seq')).map((r) => Number(r.seq));
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    // Each row links to the hash of the one before it.
    const page = (await call('/v1/audit-trail?limit=2')).body.data;
    if (page[0].seq === page[1].seq + 1) expect(page[0].previousHash).toBe(page[1].hash);
  });

  test('the table is append-only: the database refuses updates and deletes', async () => {
    await sealed();
    await expect(sql(`update audit_trail set actor = 'someone else' where seq = 1`)).rejects.toThrow(/append-only/);
    await expect(sql(`delete from audit_trail where seq = 1`)).rejects.toThrow(/append-only/);
    await expect(sql(`update audit_trail set seq = null, hash = null where seq = 2`)).rejects.toThrow(/append-only/);
  });

  test('a row edited with SQL is detected, and where', async () => {
    await sealed();
    const [row] = await sql<{ id: string; seq: string; after: any }[]>(
      `select id, seq, after from audit_trail where action = 'requirement.update' order by seq limit 1`,
    );
    const tampered = { ...row.after, status: 'completed' };
    await sql(`alter table audit_trail disable trigger audit_trail_append_only`);
    try {
      await sql(`update audit_trail set after = ?::jsonb where id = ?`, [JSON.stringify(tampered), row.id]);
    } finally {
      await sql(`alter table audit_trail enable trigger audit_trail_append_only`);
    }
    const v = (await call('/v1/audit-trail/verify')).body;
    expect(v.intact).toBe(false);
    expect(v.firstBroken).toMatchObject({ seq: Number(row.seq), id: row.id, problem: 'content-altered' });

    // Recomputing the content hash as well moves the break to the row's own hash.
    const [again] = await sql<{ content_hash: string }[]>(`select content_hash from audit_trail where id = ?`, [row.id]);
    await sql(`alter table audit_trail disable trigger audit_trail_append_only`);
    try {
      const [r] = await sql<any[]>(`select * from audit_trail where id = ?`, [row.id]);
      const forged = contentOf(r);
      expect(forged).not.toBe(again.content_hash);
      await sql(`update audit_trail set content_hash = ? where id = ?`, [forged, row.id]);
      const v2 = (await call('/v1/audit-trail/verify')).body;
      expect(v2.firstBroken).toMatchObject({ seq: Number(row.seq), problem: 'hash-altered' });
      // Put the row back as it was: the chain checks out again.
      await sql(`update audit_trail set after = ?::jsonb, content_hash = ? where id = ?`, [JSON.stringify(row.after), again.content_hash, row.id]);
    } finally {
      await sql(`alter table audit_trail enable trigger audit_trail_append_only`);
    }
    expect((await call('/v1/audit-trail/verify')).body).toMatchObject({ intact: true, firstBroken: null });
  });

  test('a row altered before it was sealed is sealed as it was hashed, and verify finds it', async () => {
    await sealed();
    // An unsealed row whose content no longer gives its stored hash: the sealer chains the stored
    // hash without reading the content back, so the row is caught by verify, not lost.
    const id = `aud_altered_${Date.now()}`;
    const at = new Date().toISOString();
    const honest = contentOf({
      id,
      seq: null,
      at,
      key_id: 'admin',
      actor: 'admin',
      action: 'requirement.update',
      entity_type: 'requirement',
      entity_id: 'req_x',
      request_id: null,
      before: { status: 'pending' },
      after: { status: 'in-progress' },
      content_hash: '',
      previous_hash: null,
      hash: null,
    });
    await sql(
      `insert into audit_trail (id, at, key_id, actor, action, entity_type, entity_id, request_id, before, after, content_hash)
       values (?, ?, 'admin', 'admin', 'requirement.update', 'requirement', 'req_x', null, ?::jsonb, ?::jsonb, ?)`,
      [id, at, JSON.stringify({ status: 'pending' }), JSON.stringify({ status: 'completed' }), honest],
    );
    await gw.services.auditTrail.sealNow();
    const [row] = await sql<{ seq: string | null }[]>(`select seq from audit_trail where id = ?`, [id]);
    expect(row.seq).not.toBeNull();
    const v = (await call('/v1/audit-trail/verify')).body;
    expect(v.intact).toBe(false);
    expect(v.firstBroken).toMatchObject({ seq: Number(row.seq), id, problem: 'content-altered' });
    // Put the row's content back to what was hashed: the chain checks out.
    await sql(`alter table audit_trail disable trigger audit_trail_append_only`);
    try {
      await sql(`update audit_trail set after = ?::jsonb where id = ?`, [JSON.stringify({ status: 'in-progress' }), id]);
    } finally {
      await sql(`alter table audit_trail enable trigger audit_trail_append_only`);
    }
    expect((await call('/v1/audit-trail/verify')).body).toMatchObject({ intact: true, firstBroken: null });
  });

  test('a deleted row is detected as a gap in the chain', async () => {
    await sealed();
    await sql(`alter table audit_trail disable trigger audit_trail_append_only`);
    try {
      await sql(`delete from audit_trail where seq = 3`);
    } finally {
      await sql(`alter table audit_trail enable trigger audit_trail_append_only`);
    }
    const v = (await call('/v1/audit-trail/verify')).body;
    expect(v.intact).toBe(false);
    expect(v.firstBroken).toMatchObject({ seq: 4, problem: 'rows-missing', expected: '3', found: '4' });
    expect(v.problems).toBeGreaterThanOrEqual(2); // the gap, and the link of row 4
  });
});

describe('reading the trail', () => {
  test('filters by entity, key and time range; pages newest first', async () => {
    const all = (await call('/v1/audit-trail?limit=500')).body;
    expect(all.pagination.total).toBeGreaterThan(20);
    const findings = (await call('/v1/audit-trail?entity=finding')).body.data;
    expect(findings.length).toBeGreaterThan(0);
    expect(findings.every((e: any) => e.entityType === 'finding')).toBe(true);
    const admin = (await call('/v1/audit-trail?key=admin&limit=500')).body;
    expect(admin.data.every((e: any) => e.keyId === 'admin')).toBe(true);

    const times = all.data.map((e: any) => e.at);
    expect([...times].sort().reverse()).toEqual(times);
    const middle = times[Math.floor(times.length / 2)];
    const later = (await call(`/v1/audit-trail?from=${encodeURIComponent(middle)}&limit=500`)).body.data;
    expect(later.length).toBeGreaterThan(0);
    expect(later.every((e: any) => e.at >= middle)).toBe(true);
    const earlier = (await call(`/v1/audit-trail?to=${encodeURIComponent(middle)}&limit=500`)).body.data;
    expect(earlier.every((e: any) => e.at <= middle)).toBe(true);
    expect(later.length + earlier.length).toBeGreaterThanOrEqual(all.data.length);

    const page1 = (await call('/v1/audit-trail?limit=3&offset=0')).body;
    const page2 = (await call('/v1/audit-trail?limit=3&offset=3')).body;
    expect(page1.pagination).toMatchObject({ limit: 3, offset: 0, hasMore: true });
    expect(page2.data[0].id).toBe(all.data[3].id);
  });

  test('bad filters are a 400 naming the field', async () => {
    for (const [q, field] of [
      ['entity=planet', 'entity'],
      ['from=yesterday', 'from'],
      ['limit=0', 'limit'],
      ['from=2026-02-01&to=2026-01-01', 'to'],
    ]) {
      const { status, body } = await call(`/v1/audit-trail?${q}`);
      expect(status).toBe(400);
      expect(body.error.code).toBe('VALIDATION_ERROR');
      expect(body.error.details.map((d: any) => d.field)).toContain(field);
    }
  });

  test('needs read:audit-trail on REST, GraphQL and tRPC', async () => {
    const without = await issueKey(gw, ['read:requirements', 'read:compliance', 'read:audits']);
    const withIt = await issueKey(gw, ['read:audit-trail']);
    expect((await call('/v1/audit-trail', { auth: null })).status).toBe(401);
    expect((await call('/v1/audit-trail', { auth: without })).status).toBe(403);
    expect((await call('/v1/audit-trail/verify', { auth: without })).status).toBe(403);
    expect((await call('/v1/audit-trail?limit=1', { auth: withIt })).status).toBe(200);

    const gql = (auth: string) =>
      call('/graphql', {
        method: 'POST',
        auth,
        json: {
          query: `{ auditTrail(filter: { entity: REQUIREMENT }, limit: 2) { data { action keyId before after seq sealed } pagination { total } } auditTrailVerification { intact rows { total } head { seq } } }`,
        },
      });
    const denied = await gql(without);
    expect(denied.body.errors[0].extensions.code).toBe('AUTHORIZATION_ERROR');
    const ok = await gql(withIt);
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.auditTrail.data[0]).toMatchObject({ action: expect.stringMatching(/^requirement\./), seq: expect.any(Number) });
    expect(typeof ok.body.data.auditTrailVerification.intact).toBe('boolean');

    const trpc = (path: string, auth: string, input?: unknown) =>
      call(`/trpc/${path}${input ? `?input=${encodeURIComponent(JSON.stringify(input))}` : ''}`, { auth });
    expect((await trpc('auditTrail.list', without, { limit: 1 })).body.error.data.domainCode).toBe('AUTHORIZATION_ERROR');
    const list = await trpc('auditTrail.list', withIt, { entity: 'finding', limit: 1 });
    expect(list.body.result.data.data[0].entityType).toBe('finding');
    const verify = await trpc('auditTrail.verify', withIt);
    expect(verify.body.result.data.rows.total).toBeGreaterThan(0);
  });
});
