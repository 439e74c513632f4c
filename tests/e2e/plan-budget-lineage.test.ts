import { mintKey, useGateway } from '../helpers/gateway';

/**
 * Issue 37 finding 7: 3 children of one standard key made 3,997 calls in an hour against a 1,000
 * budget. A key and every key descended from it share the hourly plan budget of the root key, on
 * REST, GraphQL and tRPC alike (one counter); keys of other lineages keep their own.
 */
const gw = useGateway({ API_RATE_LIMIT: '100000' });

const remaining = (res: Response) => Number(res.headers.get('x-ratelimit-remaining'));

test('children and grandchildren spend their root key’s hourly budget; the 1,001st call of the family is 429', async () => {
  const root = await mintKey(gw, { name: 'root', permissions: ['read:compliance', 'manage:api-keys'] });
  const children = [];
  for (let i = 0; i < 3; i++) children.push(await mintKey(gw, { name: `child ${i}`, permissions: ['read:compliance', 'manage:api-keys'] }, root.key));
  const grandchild = await mintKey(gw, { name: 'grandchild', permissions: ['read:compliance'] }, children[0].key);
  const stranger = await mintKey(gw, { name: 'other lineage', permissions: ['read:compliance'] });

  const call = (key: string) => gw.request('/v1/frameworks', { auth: key });
  const first = await call(root.key);
  expect(first.headers.get('x-ratelimit-limit')).toBe('1000');
  const r0 = remaining(first);
  // Each member of the family counts against the same budget.
  expect(remaining(await call(children[0].key))).toBe(r0 - 1);
  expect(remaining(await call(children[1].key))).toBe(r0 - 2);
  expect(remaining(await call(grandchild.key))).toBe(r0 - 3);
  const gql = await gw.request('/graphql', { method: 'POST', auth: children[2].key, json: { query: '{ frameworks { id } }' } });
  expect(gql.status).toBe(200);
  expect(remaining(await call(children[2].key))).toBe(r0 - 5);
  // Another lineage is not touched.
  expect(remaining(await call(stranger.key))).toBe(999);

  // Spend the rest across the children, twenty at a time, then every member is refused.
  const family = [root.key, ...children.map((c) => c.key), grandchild.key];
  let left = r0 - 5;
  let k = 0;
  while (left > 0) {
    const n = Math.min(20, left);
    const answers = await Promise.all(Array.from({ length: n }, () => call(family[k++ % family.length])));
    for (const a of answers) expect(a.status).toBe(200);
    left -= n;
  }
  for (const key of family) {
    const refused = await call(key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeTruthy();
  }
  const trpc = await gw.request('/trpc/compliance.frameworks', { auth: children[1].key });
  expect(trpc.status).toBe(429);
  expect((await call(stranger.key)).status).toBe(200);
}, 120_000);
