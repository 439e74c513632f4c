import { clock, clockStartingAt } from '../../domain/clock';
import { mintKey, startGateway, type TestGateway } from '../helpers/gateway';

/** Issue 11: a child key never outlives or outranks its issuer, and every key can be found. */
let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
});

const mint = (json: Record<string, unknown>, auth?: string) => mintKey(gw, json, auth);

const gql = async (query: string, auth?: string) => {
  const res = await gw.request('/graphql', { method: 'POST', json: { query }, auth });
  return (await res.json()) as any;
};

describe('key lineage', () => {
  test('a child minted without expiry by a 2m key expires with its parent; neither works nor mints after', async () => {
    const parent = await mint({ name: 'short parent', permissions: ['manage:api-keys', 'read:compliance'], expiresIn: '2m' });
    const child = await mint({ name: 'eternal child', permissions: ['manage:api-keys', 'read:compliance'] }, parent.key);
    expect(child.expiresAt).toBe(parent.expiresAt);
    const longer = await mint({ name: 'longer child', permissions: ['read:compliance'], expiresIn: '1y' }, parent.key);
    expect(longer.expiresAt).toBe(parent.expiresAt);
    expect((await gw.request('/v1/frameworks', { auth: child.key })).status).toBe(200);

    const restore = clock.use(clockStartingAt(Date.parse(parent.expiresAt!) + 1_000));
    try {
      for (const k of [parent, child, longer]) expect((await gw.request('/v1/frameworks', { auth: k.key })).status).toBe(401);
      const minted = await gw.request('/v1/auth/api-keys', { method: 'POST', json: { name: 'grandchild', permissions: ['read:compliance'] }, auth: child.key });
      expect(minted.status).toBe(401);
    } finally {
      restore();
    }
  });

  test('a child cannot be granted more than its issuer holds', async () => {
    const parent = await mint({ name: 'narrow parent', permissions: ['manage:api-keys', 'read:compliance'] });
    const res = await gw.request('/v1/auth/api-keys', { method: 'POST', json: { name: 'wider', permissions: ['read:audits'] }, auth: parent.key });
    expect(res.status).toBe(403);
  });

  test('revoking a key revokes its children and grandchildren, on REST, GraphQL and tRPC at once', async () => {
    const parent = await mint({ name: 'root of tree', permissions: ['manage:api-keys', 'read:compliance'] });
    const child = await mint({ name: 'child', permissions: ['manage:api-keys', 'read:compliance'] }, parent.key);
    const grandchild = await mint({ name: 'grandchild', permissions: ['read:compliance'] }, child.key);
    const sibling = await mint({ name: 'unrelated', permissions: ['read:compliance'] });
    for (const k of [child, grandchild]) expect((await gw.request('/v1/frameworks', { auth: k.key })).status).toBe(200);

    expect((await gw.request(`/v1/auth/api-keys/${parent.id}`, { method: 'DELETE' })).status).toBe(200);

    for (const k of [parent, child, grandchild]) {
      expect((await gw.request('/v1/frameworks', { auth: k.key })).status).toBe(401);
      expect((await gql('{ frameworks { id } }', k.key)).errors?.[0]?.extensions?.code).toBe('AUTHENTICATION_ERROR');
      expect((await gw.request('/trpc/compliance.frameworks', { auth: k.key })).status).toBe(401);
    }
    expect((await gw.request('/v1/frameworks', { auth: sibling.key })).status).toBe(200);

    const list: any = await (await gw.request('/v1/auth/api-keys')).json();
    const byId = new Map(list.data.map((k: any) => [k.id, k]));
    for (const k of [parent, child, grandchild]) expect((byId.get(k.id) as any).revokedAt).not.toBeNull();
    expect((byId.get(sibling.id) as any).revokedAt).toBeNull();
  });
});

describe('GET /v1/auth/api-keys', () => {
  test('the admin sees every key with its lineage; a key sees only the keys it issued; never a secret', async () => {
    const issuer = await mint({ name: 'team lead', permissions: ['manage:api-keys', 'read:requirements'], expiresIn: '30d' });
    const mine = await mint({ name: 'ci job', permissions: ['read:requirements'] }, issuer.key);
    const other = await mint({ name: 'someone else', permissions: ['read:requirements'] });
    expect((await gw.request('/v1/requirements', { auth: mine.key })).status).toBe(200);

    const all = await gw.request('/v1/auth/api-keys');
    expect(all.status).toBe(200);
    const allBody: any = await all.json();
    const ids = allBody.data.map((k: any) => k.id);
    expect(ids).toEqual(expect.arrayContaining([issuer.id, mine.id, other.id]));
    const row = allBody.data.find((k: any) => k.id === mine.id);
    expect(row).toEqual({
      id: mine.id,
      prefix: mine.key.slice(0, 8),
      name: 'ci job',
      permissions: ['read:requirements'],
      plan: 'standard',
      isAdmin: false,
      issuedBy: issuer.id,
      createdAt: expect.any(String),
      expiresAt: issuer.expiresAt,
      lastUsedAt: expect.any(String),
      revokedAt: null,
    });
    expect(allBody.data.find((k: any) => k.id === issuer.id).issuedBy).toBe('admin');
    expect(JSON.stringify(allBody)).not.toContain(mine.key);
    expect(JSON.stringify(allBody)).not.toMatch(/secretHash|[0-9a-f]{64}/);

    const own: any = await (await gw.request('/v1/auth/api-keys', { auth: issuer.key })).json();
    expect(own.data.map((k: any) => k.id)).toEqual([mine.id]);

    const noManage = await gw.request('/v1/auth/api-keys', { auth: mine.key });
    expect(noManage.status).toBe(403);
    expect((await gw.request('/v1/auth/api-keys', { auth: null })).status).toBe(401);

    const viaGql = await gql('{ apiKeys { id prefix name permissions plan issuedBy createdAt expiresAt lastUsedAt revokedAt } }', issuer.key);
    expect(viaGql.errors).toBeUndefined();
    expect(viaGql.data.apiKeys).toEqual([expect.objectContaining({ id: mine.id, issuedBy: issuer.id, name: 'ci job' })]);
    expect((await gql('{ apiKeys { id } }', mine.key)).errors?.[0]?.extensions?.code).toBe('AUTHORIZATION_ERROR');

    const viaTrpc = await gw.request('/trpc/auth.apiKeys', { auth: issuer.key });
    expect(viaTrpc.status).toBe(200);
    const trpcBody: any = await viaTrpc.json();
    expect(trpcBody.result.data.data.map((k: any) => k.id)).toEqual([mine.id]);
    expect((await gw.request('/trpc/auth.apiKeys', { auth: mine.key })).status).toBe(403);
  });
});
