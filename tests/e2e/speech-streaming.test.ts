import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { decode, type AudioFormat } from '../../domain/tts/audio';
import { ADMIN_KEY, useGateway } from '../helpers/gateway';
import { readSse } from '../helpers/sse';

/**
 * Speech that arrives early: the `started` event names a stream that begins with the first chunk
 * and carries the whole file in order; a client that joins late gets every byte from the start;
 * each `progress` event names its chunk, playable alone. Mock calls take 300 ms, so the stream
 * opened at `started` is always opened while the audio is being made.
 */

const gw = useGateway({ MOCK_LATENCY_MS: '300' });

const sentences = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => `Sentence ${i + 1} of the ${tag} stream tells a little more, said the narrator slowly.`).join(' ');

/** Reads a whole response body. */
async function readAll(res: Response): Promise<Buffer> {
  const parts: Buffer[] = [];
  const reader = res.body!.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parts.push(Buffer.from(value));
  }
  return Buffer.concat(parts);
}

/** WAV streams carry 0xFFFFFFFF sizes; the stored file the exact ones. Everything else is equal. */
function withExactWavSizes(stream: Buffer, file: Buffer): Buffer {
  const out = Buffer.from(stream);
  file.copy(out, 4, 4, 8);
  file.copy(out, 40, 40, 44);
  return out;
}

describe.each(['mp3', 'ogg', 'wav'] as AudioFormat[])('%s', (format) => {
  test('the stream starts at once and is the file; every chunk has its own URL and plays alone', async () => {
    const text = sentences(14, format);
    const res = await gw.request('/api/v1/generate-progressive', { method: 'POST', json: { text, options: { provider: 'mock', format } } });
    expect(res.status).toBe(200);
    let first!: Promise<{ res: Response; body: Promise<Buffer> }>;
    const open = (url: string) => gw.request(url).then((r) => ({ res: r, body: readAll(r) }));
    const events = await readSse(res, {
      until: (e) => {
        if (e.type === 'started') first = open(e.streamUrl);
        return e.type === 'complete' || e.type === 'error';
      },
    });
    const started = events[0];
    const complete = events.at(-1);
    expect(complete.type).toBe('complete');
    expect(started).toMatchObject({ type: 'started', streamUrl: `/api/v1/audio/${complete.hash}/stream` });

    const a = await first;
    expect(a.res.status).toBe(200);
    expect(a.res.headers.get('x-stream')).toBe('live');
    expect(a.res.headers.get('content-length')).toBeNull(); // chunked transfer
    expect(a.res.headers.get('content-type')).toBe({ mp3: 'audio/mpeg', ogg: 'audio/ogg', wav: 'audio/wav' }[format]);
    const streamed = await a.body;
    const file = Buffer.from(await (await gw.request(complete.audioUrl)).arrayBuffer());
    expect(file.length).toBe(complete.metadata.fileSize);
    if (format === 'wav') {
      expect(streamed.readUInt32LE(40)).toBe(0xffffffff);
      expect(withExactWavSizes(streamed, file).equals(file)).toBe(true);
    } else {
      expect(streamed.equals(file)).toBe(true);
    }
    const pcm = await decode(streamed, format);
    expect(Math.abs(pcm.samples.length / pcm.sampleRate - complete.duration)).toBeLessThan(0.2);

    // Once complete, the stream URL serves exactly the stored file.
    const after = await gw.request(started.streamUrl);
    expect(after.headers.get('x-stream')).toBeNull();
    expect(Buffer.from(await after.arrayBuffer()).equals(file)).toBe(true);

    // Progress: one event per chunk, in order, each with its own playable audio.
    const progress = events.filter((e) => e.type === 'progress');
    expect(progress.length).toBe(started.totalChunks);
    expect(progress.map((p) => p.chunkIndex)).toEqual(progress.map((_, i) => i));
    const chunkFiles: Buffer[] = [];
    for (const p of progress) {
      expect(p.chunkAudioUrl).toBe(`/api/v1/audio/${complete.hash}/chunks/${p.chunkIndex}`);
      const c = await gw.request(p.chunkAudioUrl);
      expect(c.status).toBe(200);
      const bytes = Buffer.from(await c.arrayBuffer());
      const chunkPcm = await decode(bytes, format);
      expect(chunkPcm.samples.length).toBeGreaterThan(0);
      chunkFiles.push(bytes);
    }
    // The first chunk is the first sentence alone, so it is short.
    const firstPcm = await decode(chunkFiles[0], format);
    expect(firstPcm.samples.length / firstPcm.sampleRate).toBeLessThan((text.length / 14 / 15) * 1.5 + 1);
    // MP3 chunks are the stream's own frames: concatenated, they are the file.
    if (format === 'mp3') expect(Buffer.concat(chunkFiles).equals(file)).toBe(true);
    expect((await gw.request(`/api/v1/audio/${complete.hash}/chunks/${progress.length}`)).status).toBe(404);
  });
});

test('a client that joins midway gets the whole stream from the start, identical', async () => {
  const text = sentences(24, 'joining');
  const res = await gw.request('/api/v1/generate-progressive', { method: 'POST', json: { text, options: { provider: 'mock', format: 'mp3' } } });
  let streamUrl = '';
  let early: Promise<Buffer> | undefined;
  let late: Promise<{ live: string | null; body: Buffer }> | undefined;
  const events = await readSse(res, {
    until: (e) => {
      if (e.type === 'started') {
        streamUrl = e.streamUrl;
        early = gw.request(streamUrl).then(readAll);
      }
      // Joins once some chunks have been streamed already.
      if (e.type === 'progress' && e.chunkIndex === 1)
        late = gw.request(streamUrl).then(async (r) => ({ live: r.headers.get('x-stream'), body: await readAll(r) }));
      return e.type === 'complete' || e.type === 'error';
    },
  });
  const complete = events.at(-1);
  expect(complete.type).toBe('complete');
  const file = Buffer.from(await (await gw.request(complete.audioUrl)).arrayBuffer());
  const a = await early!;
  const b = await late!;
  expect(a.equals(file)).toBe(true);
  expect(b.live).toBe('live'); // it did join while the audio was being made
  expect(b.body.equals(file)).toBe(true);
  await decode(b.body, 'mp3');
});

test('GraphQL and tRPC subscriptions carry streamUrl, chunkIndex and chunkAudioUrl', async () => {
  const text = sentences(5, 'subscribed');
  const client = createClient({
    url: gw.url.replace('http', 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${ADMIN_KEY}` },
    retryAttempts: 0,
  });
  const events: any[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      client.subscribe(
        {
          query: `subscription($input: GenerateInput!) { generateProgressive(input: $input) { type totalChunks streamUrl completed chunkIndex chunkAudioUrl hash } }`,
          variables: { input: { text, options: { provider: 'MOCK', format: 'OGG' } } },
        },
        { next: (v: any) => events.push(v.data.generateProgressive), error: reject, complete: resolve },
      );
    });
  } finally {
    await client.dispose();
  }
  const hash = events.at(-1).hash;
  // GraphQL names the event types as enum values.
  expect(events[0]).toMatchObject({ type: 'STARTED', streamUrl: `/api/v1/audio/${hash}/stream` });
  const progress = events.filter((e) => e.type === 'PROGRESS');
  expect(progress.length).toBeGreaterThan(0);
  expect(progress.map((p) => p.chunkIndex)).toEqual(progress.map((_, i) => i));
  expect(progress[0].chunkAudioUrl).toBe(`/api/v1/audio/${hash}/chunks/0`);

  const text2 = sentences(4, 'trpc');
  const sse = await gw.request(
    `/trpc/tts.generateProgressive?input=${encodeURIComponent(JSON.stringify({ text: text2, options: { provider: 'mock', format: 'wav' } }))}`,
    {
      headers: { accept: 'text/event-stream' },
    },
  );
  const trpcEvents = (await readSse(sse, { until: (e) => e?.type === 'complete' || e?.type === 'error' })).filter(
    (e) => e && typeof e === 'object' && 'type' in e,
  );
  const h = trpcEvents.at(-1).hash;
  expect(trpcEvents[0]).toMatchObject({ type: 'started', streamUrl: `/api/v1/audio/${h}/stream` });
  expect(trpcEvents.find((e) => e.type === 'progress')).toMatchObject({ chunkIndex: 0, chunkAudioUrl: `/api/v1/audio/${h}/chunks/0` });
});
