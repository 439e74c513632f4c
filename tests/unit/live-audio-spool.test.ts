import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FsBlobStore, blobKeyOf } from '../../domain/tts/cache/blob-store';
import { LiveAudio, type LiveListener } from '../../domain/tts/live-audio';
import { encodeBlocksLive, type TaggedBlock } from '../../domain/tts/audio/live-encode';
import { synthesizeSpeechLike } from '../../domain/tts/audio';

/**
 * A long progressive generation keeps its bytes in the file being written (FsBlobStore.writer), not
 * in memory: late listeners and chunk URLs read them back from there, and the stored blob is that file.
 */

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-test-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const bytes = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff));

function collector() {
  const got: Buffer[] = [];
  let ended = false;
  let failed: unknown;
  const listener: LiveListener = { data: (b) => got.push(Buffer.from(b)), end: () => (ended = true), error: (e) => (failed = e) };
  return { listener, all: () => Buffer.concat(got), ended: () => ended, failed: () => failed };
}

test('the blob writer stores what was appended under its content address, readable before and after', async () => {
  const store = new FsBlobStore(root);
  const writer = await store.writer();
  const parts = [bytes(1000, 1), bytes(70_000, 2), bytes(5, 3)];
  for (const p of parts) await writer.write(p);
  const whole = Buffer.concat(parts);
  expect((await writer.read(990, 1010)).equals(whole.subarray(990, 1010))).toBe(true);
  const key = await writer.commit();
  expect(key).toBe(blobKeyOf(whole));
  expect((await store.get(key))!.equals(whole)).toBe(true);
  expect((await writer.read(0, whole.length)).equals(whole)).toBe(true);
  expect(fs.readdirSync(path.join(root, 'incoming'))).toEqual([]);
});

test('an aborted blob leaves nothing behind', async () => {
  const store = new FsBlobStore(root);
  const writer = await store.writer();
  await writer.write(bytes(100, 4));
  await writer.abort();
  expect(fs.readdirSync(path.join(root, 'incoming'))).toEqual([]);
  expect(fs.readdirSync(root)).toEqual(['incoming']);
});

test('a spooled live stream gives a late listener every byte from the start, then the rest; chunks come from the spool', async () => {
  const writer = await new FsBlobStore(root).writer();
  const live = new LiveAudio('a'.repeat(64), 'mp3', 3);
  live.attachSpool(writer);
  expect(live.keepsFile).toBe(true);
  const early = collector();
  live.subscribe(early.listener);
  const written: Buffer[] = [];
  const write = async (b: Buffer) => {
    written.push(b);
    await live.write(b);
  };
  await write(bytes(3000, 5));
  live.endChunk(0);
  await write(bytes(2_500_000, 6)); // more than one read-back piece
  live.endChunk(1);
  const late = collector();
  live.subscribe(late.listener);
  await write(bytes(700, 7)); // while the late listener is being caught up
  live.endChunk(2);
  await write(bytes(50, 8));
  live.endChunk(2);
  const whole = Buffer.concat(written);
  expect((await live.chunkFile(1))!.equals(whole.subarray(3000, 2_503_000))).toBe(true);
  expect((await live.chunkFile(2))!.equals(whole.subarray(2_503_000))).toBe(true);
  await writer.commit();
  live.finish();
  for (let i = 0; i < 100 && !late.ended(); i++) await new Promise((r) => setImmediate(r));
  expect(early.all().equals(whole)).toBe(true);
  expect(early.ended()).toBe(true);
  expect(late.failed()).toBeUndefined();
  expect(late.ended()).toBe(true);
  expect(late.all().equals(whole)).toBe(true);
});

test.each(['mp3', 'ogg'] as const)('a spooled %s encode stores the same file and serves the same chunks as one kept in memory', async (format) => {
  const pcm = (text: string) => synthesizeSpeechLike({ text, voice: 'alloy', speed: 1 }).samples;
  const chunks = [pcm('The first sentence.'), pcm('A second, somewhat longer sentence of the text. '.repeat(8)), pcm('The end.')];
  async function* tagged(): AsyncGenerator<TaggedBlock> {
    for (let i = 0; i < chunks.length; i++) yield { samples: chunks[i], endsChunk: i };
  }
  const inMemory = new LiveAudio('c'.repeat(64), format, chunks.length);
  const kept = await encodeBlocksLive(tagged(), 24000, format, {}, inMemory);
  const store = new FsBlobStore(root);
  const writer = await store.writer();
  const spooled = new LiveAudio('d'.repeat(64), format, chunks.length);
  spooled.attachSpool(writer);
  const streamed = await encodeBlocksLive(tagged(), 24000, format, {}, spooled);
  expect(streamed.data).toBeNull();
  expect(streamed).toMatchObject({ size: kept.data!.length, bitrate: kept.bitrate, sampleRate: kept.sampleRate, durationSeconds: kept.durationSeconds });
  for (let i = 0; i < chunks.length; i++) expect((await spooled.chunkFile(i))!.equals((await inMemory.chunkFile(i))!)).toBe(true);
  const key = await writer.commit();
  expect((await store.get(key))!.equals(kept.data!)).toBe(true);
});
