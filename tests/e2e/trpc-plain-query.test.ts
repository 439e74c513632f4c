import { issueKey, startGateway, type TestGateway } from '../helpers/gateway';

/**
 * A plain tRPC query (`GET /trpc/<procedure>?input=…`) is called straight through its procedure
 * (gateway/start/trpc-plain-query.ts) rather than through tRPC's Fetch adapter: its answers, success
 * and error alike, are the ones tRPC gives the same call in a batch of one, and it is charged once.
 * The read-model cache is off, so every answer is computed.
 */
describe('plain tRPC queries', () => {
  let gw: TestGateway;
  let key: string;
  beforeAll(async () => {
    gw = await startGateway({ READ_MODEL_CACHE_BYTES: '0' });
    key = await issueKey(gw, ['read:compliance', 'read:requirements', 'write:requirements']);
    for (let i = 0; i < 3; i++) {
      const res = await gw.request('/v1/requirements', { method: 'POST', auth: key, json: { title: `Plain ${i}`, framework: 'gdpr', priority: 'high' } });
      expect(res.status).toBe(201);
    }
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
  });

  const input = (value: unknown) => encodeURIComponent(JSON.stringify(value));
  const plain = (path: string, value?: unknown) => gw.request(`/trpc/${path}${value === undefined ? '' : `?input=${input(value)}`}`, { auth: key });
  const batchOfOne = async (path: string, value?: unknown) => {
    const res = await gw.request(`/trpc/${path}?batch=1${value === undefined ? '' : `&input=${input({ 0: value })}`}`, { auth: key });
    return { status: res.status, item: ((await res.json()) as unknown[])[0] };
  };
  const remaining = async () => Number((await gw.request('/v1/frameworks', { auth: key })).headers.get('x-ratelimit-remaining'));

  test('answers what tRPC answers the same call, with its headers', async () => {
    for (const [path, value] of [
      ['compliance.requirements', { limit: 2 }],
      ['compliance.requirements', undefined],
      ['compliance.frameworks', undefined],
    ] as const) {
      const res = await plain(path, value);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(res.headers.get('vary')).toBe('trpc-accept, accept');
      const body = await res.json();
      const batched = await batchOfOne(path, value);
      expect(batched.status).toBe(200);
      expect(body).toEqual(batched.item);
    }
    const list = (await (await plain('compliance.requirements', { limit: 2 })).json()) as any;
    expect(list.result.data.data).toHaveLength(2);
    // The detail form: every field of a requirement.
    expect(Object.keys(list.result.data.data[0])).toEqual(expect.arrayContaining(['acceptanceCriteria', 'technicalContext', 'implementation', 'validation']));
  });

  test('a call that throws answers tRPC error, charged once', async () => {
    const before = await remaining();
    const res = await plain('compliance.requirements', { limit: 5000 });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error.data.domainCode).toBe('VALIDATION_ERROR');
    // /v1/frameworks itself costs one, the failing call one.
    expect(await remaining()).toBe(before - 2);
    const batched = await batchOfOne('compliance.requirements', { limit: 5000 });
    expect(batched.status).toBe(400);
    expect(body).toEqual(batched.item);

    const missing = await plain('compliance.requirement', { id: 'req_missing' });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.data.domainCode).toBe('NOT_FOUND');
  });

  test('anything but a plain query goes to tRPC as before', async () => {
    const broken = await gw.request('/trpc/compliance.requirements?input=%7B', { auth: key });
    expect(broken.status).toBe(400);
    const mutationAsGet = await plain('compliance.deleteRequirement', { id: 'req_x' });
    expect(mutationAsGet.status).toBe(405);
    const unknown = await plain('compliance.nothing');
    expect(unknown.status).toBe(404);
    const anon = await gw.request('/trpc/compliance.frameworks', { auth: null });
    expect(anon.status).toBe(401);
  });
});
