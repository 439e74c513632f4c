/**
 * REST, tRPC and GraphQL share one cache of read-model answers (issue #14): a repeated list or
 * detail read is computed once, whoever asks and over whichever transport, and every committed
 * change — through the gateway or in SQL behind its back — is seen by the next read.
 */
import * as requirementRows from '../../domain/compliance/requirements/requirement.rows';
import type { EntityManager } from '@mikro-orm/postgresql';
import { writeEpoch } from '../../domain/database/write-epoch';
import { startGateway, type TestGateway } from '../helpers/gateway';

let gw: TestGateway;
let readerKey: string;
const sql = (text: string, params: unknown[] = []) => (gw.db.orm.em as unknown as EntityManager).getConnection().execute(text, params);

beforeAll(async () => {
  gw = await startGateway();
  const res = await gw.request('/v1/auth/api-keys', { method: 'POST', json: { name: 'reader', permissions: ['read:requirements'] } });
  readerKey = ((await res.json()) as any).key;
});
afterAll(async () => {
  await gw?.close();
});

const restList = async (auth?: string) => (await (await gw.request('/v1/requirements?limit=10', { auth })).json()) as any;
const trpcList = async () =>
  ((await (await gw.request(`/trpc/compliance.requirements?input=${encodeURIComponent(JSON.stringify({ limit: 10 }))}`)).json()) as any).result.data;

test('a repeated read is computed once for every caller and transport; each kind of change is seen by the next read', async () => {
  const created = await gw.request('/v1/requirements', { method: 'POST', json: { title: 'Shared answer', framework: 'gdpr', priority: 'high' } });
  const id = ((await created.json()) as any).id;
  const computed = jest.spyOn(requirementRows, 'readRequirementPage');

  const first = await restList();
  expect(await restList()).toEqual(first);
  expect(await restList(readerKey)).toEqual(first); // another caller with the permission
  expect(computed).toHaveBeenCalledTimes(1);
  await trpcList();
  await trpcList();
  expect(computed).toHaveBeenCalledTimes(2); // tRPC lists every field: its own answer, kept too

  // A key without the permission gets its 403, not the kept answer.
  const none = await gw.request('/v1/auth/api-keys', { method: 'POST', json: { name: 'nothing', permissions: ['read:compliance'] } });
  const noneKey = ((await none.json()) as any).key;
  expect((await gw.request('/v1/requirements?limit=10', { auth: noneKey })).status).toBe(403);

  // Through the gateway.
  await gw.request(`/v1/requirements/${id}`, { method: 'PUT', json: { status: 'completed' } });
  expect((await restList()).data.find((r: any) => r.id === id).status).toBe('completed');
  expect((await trpcList()).data.find((r: any) => r.id === id).status).toBe('completed');

  // In SQL, by someone else.
  await sql(`update requirements set title = 'Renamed in SQL' where id = ?`, [id]);
  expect((await restList()).data.find((r: any) => r.id === id).title).toBe('Renamed in SQL');
  const detail = async () => (await (await gw.request(`/v1/requirements/${id}`)).json()) as any;
  expect((await detail()).title).toBe('Renamed in SQL');
  const kept = computed.mock.calls.length;
  await detail();
  expect(computed.mock.calls.length).toBe(kept);
  await sql(`update requirements set title = 'Renamed again' where id = ?`, [id]);
  expect((await detail()).title).toBe('Renamed again');

  // Deleted: gone from the list, 404 on the detail.
  expect((await gw.request(`/api/requirements/${id}`, { method: 'DELETE' })).status).toBeLessThan(300);
  expect((await restList()).data.some((r: any) => r.id === id)).toBe(false);
  expect((await gw.request(`/v1/requirements/${id}`)).status).toBe(404);
});

test('readers arriving together share one version query, and none is answered from a query older than itself', async () => {
  const version = jest.spyOn(gw.services.readModel as any, 'query');
  const before = await gw.services.readModel.version();
  const answers = await Promise.all(Array.from({ length: 50 }, () => gw.services.readModel.version()));
  expect(new Set(answers)).toEqual(new Set([before]));
  // The first reader starts a query; everyone who arrives while it runs shares the next one.
  expect(version.mock.calls.length).toBeLessThanOrEqual(2);

  // A commit that ends before a reader asks is in that reader's version.
  await gw.request('/v1/requirements', { method: 'POST', json: { title: 'Moves the version', framework: 'soc2' } });
  expect(await gw.services.readModel.version()).not.toBe(before);
});

test('on the embedded database, whose one client is this process, the version is read again only after a statement that may change data', async () => {
  const readModel = gw.services.readModel;
  const query = jest.spyOn(readModel as any, 'query');
  // The gateway's own background work (the tally's compaction after the last test's create, table
  // upkeep) may write at any moment, and rightly makes the next reader read the version again. The
  // claim is about the reads in between, so it is checked over a window in which no statement that
  // may write was sent (the write count did not move), taken again until there is one.
  let before = '';
  for (let attempt = 0; ; attempt++) {
    const epoch = writeEpoch();
    before = await readModel.version();
    const afterFirst = query.mock.calls.length;
    const seen = [await readModel.version(), await readModel.version()];
    await sql('select count(*) from requirements'); // a read moves nothing
    seen.push(await readModel.version());
    if (writeEpoch() !== epoch && attempt < 20) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    expect(seen).toEqual([before, before, before]);
    // PostgreSQL may be changed by anyone (another instance, psql): every reader reads the version.
    expect(query.mock.calls.length - afterFirst).toBe(gw.db.embedded ? 0 : 3);
    break;
  }

  // Any change, even one the read model's triggers ignore, makes the next reader read it again.
  await sql(`update jobs set attempts = attempts where false`);
  const reads = query.mock.calls.length;
  expect(await readModel.version()).toBe(before);
  expect(query.mock.calls.length).toBe(reads + 1);
  await sql(`update requirements set title = title || '.' where id = (select id from requirements limit 1)`);
  expect(await readModel.version()).not.toBe(before);
});
