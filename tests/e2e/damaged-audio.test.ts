import fs from 'node:fs';
import path from 'node:path';
import { startFakeVendor, sampleAudio, type FakeVendor } from '../helpers/fake-vendor';
import { startGateway, type TestGateway } from '../helpers/gateway';

/**
 * Two cache entries share one stored file (the vendor answered two texts with the same bytes; files
 * are content-addressed). When the file is found damaged, every entry pointing at it goes: the next
 * request for either text generates again instead of answering `cached: true` with a dead URL.
 * The in-memory tier is off, so every read goes to the stored file.
 */
let vendor: FakeVendor;
let gw: TestGateway;

beforeAll(async () => {
  vendor = await startFakeVendor(async () => ({ status: 200, headers: { 'content-type': 'audio/mpeg' }, body: await sampleAudio('mp3') }));
  gw = await startGateway({ PROVIDER_A_API_KEY: 'test', PROVIDER_A_BASE_URL: vendor.url, AUDIO_HOT_CACHE_BYTES: '0', BLOB_STORE: 'fs' });
}, 60_000);
afterAll(async () => {
  await gw?.close();
  await vendor?.close();
});

const generate = async (text: string) => {
  const res = await gw.request('/api/v1/generate', { method: 'POST', json: { text, options: { provider: 'provider_a', voice: 'echo' } } });
  expect(res.status).toBe(200);
  return (await res.json()) as { hash: string; audioUrl: string; cached: boolean };
};

test('a damaged shared file invalidates every entry pointing at it', async () => {
  const first = await generate('The first text.');
  const second = await generate('A second, different text.');
  expect(first.hash).not.toBe(second.hash);
  const files = fs
    .readdirSync(path.join(gw.dataDir, 'audio'), { recursive: true })
    .map(String)
    .filter((f) => /[0-9a-f]{64}$/.test(f));
  expect(files).toHaveLength(1); // one file, two entries
  expect((await generate('A second, different text.')).cached).toBe(true);

  const file = path.join(gw.dataDir, 'audio', files[0]);
  const bytes = fs.readFileSync(file);
  bytes[bytes.length >> 1] ^= 0xff;
  fs.writeFileSync(file, bytes);

  const damaged = await gw.request(first.audioUrl);
  expect(damaged.status).toBe(404);
  expect(JSON.stringify(await damaged.json())).toContain('integrity-check-failed');

  // The other entry is gone too: its metadata is 404 and generating it again is a fresh generation.
  expect((await gw.request(`${second.audioUrl}/metadata`)).status).toBe(404);
  const calls = vendor.requests.length;
  const again = await generate('A second, different text.');
  expect(again.cached).toBe(false);
  expect(vendor.requests.length).toBe(calls + 1);
  const served = await gw.request(again.audioUrl);
  expect(served.status).toBe(200);
  expect(Buffer.from(await served.arrayBuffer()).equals(await sampleAudio('mp3'))).toBe(true);
});

test('a stored file that vanished likewise drops every entry sharing it', async () => {
  const one = await generate('Vanishing one.');
  await generate('Vanishing two.');
  const root = path.join(gw.dataDir, 'audio');
  for (const f of fs
    .readdirSync(root, { recursive: true })
    .map(String)
    .filter((f) => /[0-9a-f]{64}$/.test(f)))
    fs.rmSync(path.join(root, f));
  expect((await gw.request(one.audioUrl)).status).toBe(404);
  expect((await generate('Vanishing two.')).cached).toBe(false);
});
