import { clock, clockStartingAt } from '../../domain/clock';
import { ADMIN_KEY, issueKey, startGateway, type TestGateway } from '../helpers/gateway';

/** Authentication and the permission of every compliance REST path this service adds. */
let gw: TestGateway;
let requirementId: string;
let findingId: string;

const COMPLIANCE_PERMISSIONS = [
  'manage:api-keys',
  'read:requirements',
  'write:requirements',
  'read:compliance',
  'write:compliance',
  'read:audits',
  'write:audits',
  'read:audit-trail',
];

beforeAll(async () => {
  gw = await startGateway();
  const req = await gw.request('/v1/requirements', { method: 'POST', json: { title: 'Access matrix', framework: 'soc2', priority: 'high' } });
  requirementId = ((await req.json()) as any).id;
  const f = await gw.request('/v1/audits/findings', { method: 'POST', json: { title: 'Matrix finding', framework: 'soc2', severity: 'low', requirementId } });
  findingId = ((await f.json()) as any).id;
});
afterAll(async () => {
  await gw?.close();
});

async function freshRequirement(): Promise<string> {
  const res = await gw.request('/v1/requirements', { method: 'POST', json: { title: 'To delete', framework: 'gdpr' } });
  return ((await res.json()) as any).id;
}

/** A key issued by `issuer` (so that issuer may revoke it). */
async function freshKey(issuer: string): Promise<string> {
  const res = await gw.request('/v1/auth/api-keys', { method: 'POST', json: { name: 'to revoke', permissions: ['manage:api-keys'] }, auth: issuer });
  const body: any = await res.json();
  return body.id ?? 'key_unknown';
}

interface Row {
  method: string;
  /** Path template, for the test name. */
  label?: string;
  path: string | ((caller: string) => Promise<string>);
  permission: string;
  body?: unknown;
  ok: number;
}

const MATRIX: Row[] = [
  { method: 'POST', path: '/v1/auth/api-keys', permission: 'manage:api-keys', body: { name: 'm', permissions: ['manage:api-keys'] }, ok: 201 },
  {
    method: 'DELETE',
    label: '/v1/auth/api-keys/{id}',
    path: async (caller) => `/v1/auth/api-keys/${await freshKey(caller)}`,
    permission: 'manage:api-keys',
    ok: 200,
  },
  { method: 'GET', path: '/v1/requirements', permission: 'read:requirements', ok: 200 },
  { method: 'POST', path: '/v1/requirements', permission: 'write:requirements', body: { title: 'Matrix', framework: 'gdpr' }, ok: 201 },
  { method: 'GET', label: '/v1/requirements/{id}', path: () => Promise.resolve(`/v1/requirements/${requirementId}`), permission: 'read:requirements', ok: 200 },
  {
    method: 'PUT',
    label: '/v1/requirements/{id}',
    path: () => Promise.resolve(`/v1/requirements/${requirementId}`),
    permission: 'write:requirements',
    body: { priority: 'low' },
    ok: 200,
  },
  {
    method: 'POST',
    label: '/v1/requirements/{id}/validate',
    path: () => Promise.resolve(`/v1/requirements/${requirementId}/validate`),
    permission: 'write:requirements',
    ok: 200,
  },
  { method: 'POST', path: '/v1/requirements/batch', permission: 'write:requirements', body: { requirements: [{ title: 'B', framework: 'gdpr' }] }, ok: 200 },
  { method: 'PATCH', path: '/v1/requirements/batch', permission: 'write:requirements', body: { updates: [{ id: 'req_x', status: 'completed' }] }, ok: 200 },
  { method: 'GET', path: '/v1/compliance/status', permission: 'read:compliance', ok: 200 },
  { method: 'GET', path: '/v1/audits/findings', permission: 'read:audits', ok: 200 },
  { method: 'POST', path: '/v1/audits/findings', permission: 'write:audits', body: { title: 'F', framework: 'gdpr', severity: 'low' }, ok: 201 },
  {
    method: 'PATCH',
    label: '/v1/audits/findings/{id}',
    path: () => Promise.resolve(`/v1/audits/findings/${findingId}`),
    permission: 'write:audits',
    body: { evidence: ['e'] },
    ok: 200,
  },
  { method: 'GET', path: '/v1/frameworks', permission: 'read:compliance', ok: 200 },
  { method: 'GET', path: '/v1/frameworks/gdpr', permission: 'read:compliance', ok: 200 },
  { method: 'GET', path: '/api/requirements', permission: 'read:requirements', ok: 200 },
  { method: 'POST', path: '/api/requirements', permission: 'write:requirements', body: { title: 'Short', framework: 'gdpr' }, ok: 201 },
  {
    method: 'GET',
    label: '/api/requirements/{id}',
    path: () => Promise.resolve(`/api/requirements/${requirementId}`),
    permission: 'read:requirements',
    ok: 200,
  },
  {
    method: 'PUT',
    label: '/api/requirements/{id}',
    path: () => Promise.resolve(`/api/requirements/${requirementId}`),
    permission: 'write:requirements',
    body: { priority: 'medium' },
    ok: 200,
  },
  {
    method: 'DELETE',
    label: '/api/requirements/{id}',
    path: async () => `/api/requirements/${await freshRequirement()}`,
    permission: 'write:requirements',
    ok: 200,
  },
  { method: 'POST', path: '/api/validate', permission: 'read:requirements', body: { title: 'Inline requirement', framework: 'gdpr' }, ok: 200 },
  { method: 'POST', path: '/api/validate', permission: 'write:requirements', body: { requirementId: 'set-below' }, ok: 200 },
  { method: 'GET', label: '/api/validate/{id}', path: () => Promise.resolve(`/api/validate/${requirementId}`), permission: 'read:requirements', ok: 200 },
  { method: 'POST', path: '/api/validate/batch', permission: 'write:requirements', body: { requirementIds: ['set-below'] }, ok: 200 },
  { method: 'GET', path: '/api/compliance/frameworks', permission: 'read:compliance', ok: 200 },
  { method: 'GET', path: '/api/compliance/gdpr', permission: 'read:compliance', ok: 200 },
  { method: 'POST', path: '/api/compliance/gdpr/assess', permission: 'write:compliance', ok: 200 },
  { method: 'GET', path: '/v1/audit-trail', permission: 'read:audit-trail', ok: 200 },
  { method: 'GET', path: '/v1/audit-trail/verify', permission: 'read:audit-trail', ok: 200 },
];

/** Bodies that name the shared requirement are filled in once it exists. */
function bodyOf(row: Row): unknown {
  if (row.body && typeof row.body === 'object' && 'requirementId' in row.body) return { requirementId };
  if (row.body && typeof row.body === 'object' && 'requirementIds' in row.body) return { requirementIds: [requirementId] };
  return row.body;
}

async function send(row: Row, auth: string | null) {
  const path = typeof row.path === 'string' ? row.path : await row.path(auth ?? ADMIN_KEY);
  const res = await gw.request(path, { method: row.method, json: bodyOf(row), auth });
  return { status: res.status, body: (await res.json()) as any };
}

const keysWith = new Map<string, string>();
const keysWithout = new Map<string, string>();

describe('permission matrix of every compliance REST path', () => {
  beforeAll(async () => {
    for (const p of COMPLIANCE_PERMISSIONS) {
      keysWith.set(p, await issueKey(gw, [p]));
      keysWithout.set(
        p,
        await issueKey(
          gw,
          COMPLIANCE_PERMISSIONS.filter((q) => q !== p),
        ),
      );
    }
  });

  test.each(MATRIX.map((r) => [`${r.method} ${r.label ?? r.path} (${r.permission})`, r] as const))('%s', async (_name, row) => {
    const none = await send(row, null);
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('AUTHENTICATION_ERROR');
    expect(typeof none.body.error.requestId).toBe('string');

    const unknown = await send(row, 'sk_not_a_real_key');
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe('AUTHENTICATION_ERROR');

    const lacking = await send(row, keysWithout.get(row.permission)!);
    expect(lacking.status).toBe(403);
    expect(lacking.body.error.code).toBe('AUTHORIZATION_ERROR');

    const exact = await send(row, keysWith.get(row.permission)!);
    expect(exact.status).toBe(row.ok);

    const admin = await send(row, ADMIN_KEY);
    expect(admin.status).toBe(row.ok);
  });
});

describe('API keys', () => {
  test('issue answers 201 with the secret once, and the key works', async () => {
    const res = await gw.request('/v1/auth/api-keys', {
      method: 'POST',
      json: { name: 'ci', permissions: ['read:requirements', 'write:requirements'], expiresIn: '30d' },
    });
    expect(res.status).toBe(201);
    const body: any = await res.json();
    expect(body).toMatchObject({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^sk_/),
      name: 'ci',
      permissions: ['read:requirements', 'write:requirements'],
    });
    const days = (Date.parse(body.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);
    const list = await gw.request('/v1/requirements', { auth: body.key });
    expect(list.status).toBe(200);
    // Issued keys are on the standard plan: 1000 requests per hour, reported in X-RateLimit-* headers.
    expect(list.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(Number(list.headers.get('x-ratelimit-remaining'))).toBeLessThan(1000);
    expect(list.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
  });

  test('bad requests → VALIDATION_ERROR naming the field', async () => {
    for (const [json, field] of [
      [{ name: 'x', permissions: ['read:everything'] }, 'permissions'],
      [{ name: 'x', permissions: ['read:requirements'], expiresIn: 'tomorrow' }, 'expiresIn'],
      [{ permissions: ['read:requirements'] }, 'name'],
    ] as const) {
      const res = await gw.request('/v1/auth/api-keys', { method: 'POST', json });
      const body: any = await res.json();
      expect(res.status).toBe(400);
      expect(body.error.code).toBe('VALIDATION_ERROR');
      expect(body.error.details.map((d: any) => d.field)).toContain(field);
    }
  });

  test('a key cannot grant permissions it lacks', async () => {
    const issuer = await issueKey(gw, ['manage:api-keys', 'read:requirements']);
    const ok = await gw.request('/v1/auth/api-keys', { method: 'POST', json: { name: 'sub', permissions: ['read:requirements'] }, auth: issuer });
    expect(ok.status).toBe(201);
    const res = await gw.request('/v1/auth/api-keys', {
      method: 'POST',
      json: { name: 'escalate', permissions: ['read:requirements', 'write:requirements'] },
      auth: issuer,
    });
    const body: any = await res.json();
    expect(res.status).toBe(403);
    expect(body.error.code).toBe('AUTHORIZATION_ERROR');
    expect(body.error.details).toEqual([{ field: 'permissions', message: expect.stringContaining('write:requirements') }]);
  });

  // Expiry runs on the domain clock, so the test moves the clock instead of sleeping (a sleep
  // assumes an idle machine), at instants where a day, a month or a year turns over.
  test.each(['2026-11-24T23:59:30.000Z', '2026-11-24T00:00:30.000Z', '2027-01-31T23:59:50.000Z', '2026-12-31T23:59:59.000Z'])(
    'a key issued at %s for 1m works until its last second and is refused with 401 after',
    async (instant) => {
      const at = (offsetMs: number) => clock.use(clockStartingAt(Date.parse(instant) + offsetMs));
      let restore = at(0);
      try {
        const issued = await gw.request('/v1/auth/api-keys', {
          method: 'POST',
          json: { name: 'short-lived', permissions: ['read:compliance'], expiresIn: '1m' },
        });
        const { key, expiresAt }: any = await issued.json();
        expect(Date.parse(expiresAt) - Date.parse(instant)).toBeGreaterThanOrEqual(60_000);
        expect(Date.parse(expiresAt) - Date.parse(instant)).toBeLessThan(62_000);
        expect((await gw.request('/v1/frameworks', { auth: key })).status).toBe(200);
        restore();
        restore = at(Date.parse(expiresAt) - Date.parse(instant) - 1_000);
        expect((await gw.request('/v1/frameworks', { auth: key })).status).toBe(200);
        restore();
        restore = at(Date.parse(expiresAt) - Date.parse(instant) + 1);
        const res = await gw.request('/v1/frameworks', { auth: key });
        expect(res.status).toBe(401);
        expect(((await res.json()) as any).error.code).toBe('AUTHENTICATION_ERROR');
      } finally {
        restore();
      }
    },
  );

  test('a revoked key is refused with 401 at once; revoking an unknown key → 404', async () => {
    const res = await gw.request('/v1/auth/api-keys', { method: 'POST', json: { name: 'revoke me', permissions: ['read:compliance'] } });
    const issued: any = await res.json();
    expect((await gw.request('/v1/frameworks', { auth: issued.key })).status).toBe(200);
    const del = await gw.request(`/v1/auth/api-keys/${issued.id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(await del.json()).toEqual({ id: issued.id, revoked: true });
    const after = await gw.request('/v1/frameworks', { auth: issued.key });
    expect(after.status).toBe(401);
    expect((await gw.request('/v1/auth/api-keys/key_missing', { method: 'DELETE' })).status).toBe(404);
  });

  test('a key holder may revoke only keys it issued', async () => {
    const a = await issueKey(gw, ['manage:api-keys']);
    const res = await gw.request('/v1/auth/api-keys', { method: 'POST', json: { name: 'admin-issued', permissions: ['read:compliance'] } });
    const adminIssued: any = await res.json();
    const denied = await gw.request(`/v1/auth/api-keys/${adminIssued.id}`, { method: 'DELETE', auth: a });
    expect(denied.status).toBe(403);
  });
});
