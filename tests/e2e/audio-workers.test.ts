import fs from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { useGateway } from '../helpers/gateway';
import { readSse } from '../helpers/sse';

/**
 * Synthesis and encoding run on the gateway's audio worker threads (domain/tts/audio-workers.ts):
 * the event loop keeps answering while a long text is encoded, the file is written as it is encoded,
 * and a worker that dies turns into a clean 503 with nothing stored, after which the next request
 * works again.
 */

const gw = useGateway({ AUDIO_WORKERS: '2' });

const longText = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => `Sentence ${i + 1} of the ${tag} text goes on a little longer, said the narrator.`).join(' ');

const storedFiles = (dir: string): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((d) => d.isFile())
        .map((d) => path.join(d.parentPath ?? d.path, d.name))
    : [];

test('a long progressive generation is made on the worker threads while the event loop answers other requests', async () => {
  const workers = gw.audioWorkers!;
  const doneBefore = Atomics.load(workers.completed, 0);
  const res = await gw.request('/api/v1/generate-progressive', {
    method: 'POST',
    headers: { accept: 'text/event-stream' },
    json: { text: longText(80, 'worker'), options: { provider: 'mock', format: 'mp3' } },
  });
  expect(res.status).toBe(200);
  const order: string[] = [];
  let health: Promise<void> | undefined;
  const incoming = path.join(gw.dataDir, 'audio', 'incoming');
  const spooledSizes: number[] = [];
  const events = await readSse(res, {
    until: (e) => {
      // The file is written as it is encoded (not gathered in memory and written at the end).
      if (e.type === 'progress' && e.completed >= 2 && !spooledSizes.length) spooledSizes.push(...storedFiles(incoming).map((f) => fs.statSync(f).size));
      if (e.type === 'progress' && !health) {
        // Asked once the encoding is under way; answered before the generation ends.
        health = gw.request('/api/v1/health').then(async (h) => {
          expect(h.status).toBe(200);
          await h.arrayBuffer();
          order.push('health');
        });
      }
      if (e.type === 'complete' || e.type === 'error') order.push(e.type);
      return e.type === 'complete' || e.type === 'error';
    },
  });
  await health;
  const complete = events.at(-1);
  expect(complete.type).toBe('complete');
  expect(order).toEqual(['health', 'complete']);
  expect(spooledSizes).toHaveLength(1);
  expect(spooledSizes[0]).toBeGreaterThan(0);
  expect(storedFiles(incoming)).toEqual([]);
  // Every chunk was synthesised by a worker, and the encoder's blocks were encoded there too.
  expect(Atomics.load(workers.completed, 0) - doneBefore).toBeGreaterThan(complete.chunks * 2);
});

test('a worker that dies during an encode gives 503 SERVICE_UNAVAILABLE with Retry-After, stores nothing, and the retry works', async () => {
  const workers = gw.audioWorkers!;
  const audioDir = path.join(gw.dataDir, 'audio');
  const filesBefore = storedFiles(audioDir);
  const body = { text: longText(70, 'crash'), options: { provider: 'mock', format: 'ogg' } };
  const answer = gw.request('/api/v1/generate', { method: 'POST', json: body });
  // The join's encoder opens on a worker once the first chunk is there: that worker is then killed.
  while (workers.openSessions === 0) await nextTurn();
  const ended = workers.workers().map((worker) => worker.terminate());

  const res = await answer;
  await Promise.all(ended); // the pool has seen every thread end before the retry picks one
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('1');
  const failed = (await res.json()) as { error: { code: string; message: string } };
  expect(failed.error.code).toBe('SERVICE_UNAVAILABLE');
  expect(failed.error.message).toMatch(/audio worker stopped/);
  expect(JSON.stringify(failed)).not.toMatch(/\bat .+\.(ts|js):\d+/); // no stack
  expect(storedFiles(audioDir)).toEqual(filesBefore);

  const retry = await gw.request('/api/v1/generate', { method: 'POST', json: body });
  expect(retry.status).toBe(200);
  const generated = (await retry.json()) as { cached: boolean; audioUrl: string };
  expect(generated.cached).toBe(false);
  const audio = await gw.request(generated.audioUrl);
  expect(audio.status).toBe(200);
  expect(
    Buffer.from(await audio.arrayBuffer())
      .subarray(0, 4)
      .toString('latin1'),
  ).toBe('OggS');
});
