import { decode, type AudioFormat } from '../../domain/tts/audio';
import { sampleAudio, startFakeVendor, type FakeReply, type FakeVendor } from '../helpers/fake-vendor';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { readSse } from '../helpers/sse';

/**
 * Vendor streaming passes through: a progressive generation through a vendor that streams its body
 * hands the first audio to the `streamUrl` client before the vendor's body has ended. The fake
 * vendor holds the rest of the first chunk's body until the test has seen bytes at its client, so
 * the order is certain: bytes at the client, then the vendor's last part. Failures before the first
 * byte is handed on are retried; a failure after it ends the stream and leaves nothing behind.
 */

let vendor: FakeVendor;
let gw: TestGateway;

beforeAll(async () => {
  vendor = await startFakeVendor(async () => ({ status: 200, headers: { 'content-type': 'audio/wav' }, body: await openAiWav() }));
  gw = await startGateway({ PROVIDER_A_API_KEY: 'test', PROVIDER_A_BASE_URL: vendor.url });
}, 120_000);
afterAll(async () => {
  await gw?.close();
  await vendor?.close();
});

/** What OpenAI's endpoint streams for `response_format: wav`: the header's sizes unknown (0xFFFFFFFF). */
async function openAiWav(): Promise<Buffer> {
  const wav = Buffer.from(await sampleAudio('wav'));
  wav.writeUInt32LE(0xffffffff, 4);
  wav.writeUInt32LE(0xffffffff, 40);
  return wav;
}

function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const firstSentence = (tag: string) => `The ${tag} story begins right here.`;
const textOf = (tag: string) =>
  `${firstSentence(tag)} It goes on for a while, with a second sentence of some length. And a third one closes it, said the narrator.`;

const generate = (text: string, format: AudioFormat) =>
  gw.request('/api/v1/generate-progressive', { method: 'POST', json: { text, options: { provider: 'provider_a', voice: 'alloy', format } } });

interface StreamRead {
  status: number;
  live: string | null;
  bytes: Buffer;
  /** Bytes the client held when `onFirstBytes` ran. */
  firstBytes: number;
  failed: boolean;
}

/** Reads the stream at `url` to its end (or until it is cut); `onFirstBytes` runs once, when the first bytes are in. */
async function readStream(url: string, onFirstBytes: () => void = () => undefined): Promise<StreamRead> {
  const res = await gw.request(url);
  const parts: Buffer[] = [];
  let firstBytes = 0;
  let failed = false;
  const reader = res.body!.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parts.push(Buffer.from(value));
      if (!firstBytes) {
        firstBytes = value.byteLength;
        onFirstBytes();
      }
    }
  } catch {
    failed = true;
  }
  return { status: res.status, live: res.headers.get('x-stream'), bytes: Buffer.concat(parts), firstBytes, failed };
}

const requestsFor = (input: string) => vendor.requests.filter((r) => r.json().input === input);

describe.each(['mp3', 'ogg', 'wav'] as AudioFormat[])('%s', (format) => {
  test('the stream client holds audio while the vendor has not yet sent the rest of the first chunk', async () => {
    const wav = await openAiWav();
    const split = Math.floor(wav.length / 2);
    const rest = gate();
    let lastPartSent = false;
    const first = firstSentence(`streamed ${format}`);
    vendor.reset(async (req): Promise<FakeReply> =>
      req.json().input === first
        ? {
            status: 200,
            headers: { 'content-type': 'audio/wav' },
            parts: [{ bytes: wav.subarray(0, split) }, { after: rest.promise, bytes: wav.subarray(split), sent: () => (lastPartSent = true) }],
          }
        : { status: 200, headers: { 'content-type': 'audio/wav' }, body: wav },
    );
    let vendorDoneAtFirstBytes: boolean | undefined;
    let stream!: Promise<StreamRead>;
    const res = await generate(textOf(`streamed ${format}`), format);
    expect(res.status).toBe(200);
    const events = await readSse(res, {
      until: (e) => {
        if (e.type === 'started') {
          stream = readStream(e.streamUrl, () => {
            vendorDoneAtFirstBytes = lastPartSent;
            rest.open();
          });
        }
        return e.type === 'complete' || e.type === 'error';
      },
    });
    const complete = events.at(-1);
    expect(complete).toMatchObject({ type: 'complete', cached: false, metadata: { provider: 'provider_a' } });
    const read = await stream;
    expect(read).toMatchObject({ status: 200, live: 'live', failed: false });
    // The client had audio while the vendor was still holding back the rest of the first chunk.
    expect(read.firstBytes).toBeGreaterThan(0);
    expect(vendorDoneAtFirstBytes).toBe(false);
    expect(lastPartSent).toBe(true);
    expect(requestsFor(first)).toHaveLength(1);
    expect(requestsFor(first)[0].json().response_format).toBe('wav');

    // The stream is the stored file (WAV streams carry unknown-length sizes, the file the exact ones).
    const file = Buffer.from(await (await gw.request(complete.audioUrl)).arrayBuffer());
    if (format === 'wav') {
      expect(read.bytes.readUInt32LE(40)).toBe(0xffffffff);
      const exact = Buffer.from(read.bytes);
      file.copy(exact, 4, 4, 8);
      file.copy(exact, 40, 40, 44);
      expect(exact.equals(file)).toBe(true);
    } else {
      expect(read.bytes.equals(file)).toBe(true);
    }
    // Three sentences of the vendor's audio, joined.
    const pcm = await decode(read.bytes, format);
    expect(pcm.samples.length / pcm.sampleRate).toBeGreaterThan(1);
    expect(Math.abs(pcm.samples.length / pcm.sampleRate - complete.duration)).toBeLessThan(0.2);
  });
});

test('failures before the first byte is handed on are retried: a body that is not audio, a connection cut before any byte', async () => {
  const wav = await openAiWav();
  const first = firstSentence('retried');
  vendor.reset(async (req): Promise<FakeReply> => {
    if (req.json().input !== first) return { status: 200, headers: { 'content-type': 'audio/wav' }, body: wav };
    const attempt = requestsFor(first).length;
    if (attempt === 1)
      return { status: 200, headers: { 'content-type': 'text/html' }, parts: [{ bytes: '<html><body>Service warming up, try again</body></html>' }] };
    if (attempt === 2) return { status: 200, headers: { 'content-type': 'audio/wav' }, parts: [{ cut: true }] };
    return { status: 200, headers: { 'content-type': 'audio/wav' }, parts: [{ bytes: wav.subarray(0, 1000) }, { bytes: wav.subarray(1000) }] };
  });
  let stream!: Promise<StreamRead>;
  const res = await generate(textOf('retried'), 'mp3');
  const events = await readSse(res, {
    until: (e) => {
      if (e.type === 'started') stream = readStream(e.streamUrl);
      return e.type === 'complete' || e.type === 'error';
    },
  });
  const complete = events.at(-1);
  expect(complete).toMatchObject({ type: 'complete', cached: false });
  expect(requestsFor(first)).toHaveLength(3);
  const read = await stream;
  expect(read.failed).toBe(false);
  const file = Buffer.from(await (await gw.request(complete.audioUrl)).arrayBuffer());
  expect(read.bytes.equals(file)).toBe(true);
  // Nothing of the failed attempts is in the audio: it decodes, and is three sentences long.
  const pcm = await decode(file, 'mp3');
  expect(Math.abs(pcm.samples.length / pcm.sampleRate - complete.duration)).toBeLessThan(0.2);
});

test('a failure after the first byte ends the stream with an error and leaves nothing cached; a repeat regenerates', async () => {
  const wav = await openAiWav();
  const first = firstSentence('broken');
  const text = textOf('broken');
  const seen = gate();
  vendor.reset(async (req): Promise<FakeReply> =>
    req.json().input === first
      ? {
          status: 200,
          headers: { 'content-type': 'audio/wav' },
          parts: [{ bytes: wav.subarray(0, Math.floor(wav.length / 2)) }, { after: seen.promise, cut: true }],
        }
      : { status: 200, headers: { 'content-type': 'audio/wav' }, body: wav },
  );
  let stream!: Promise<StreamRead>;
  let streamUrl = '';
  const res = await generate(text, 'mp3');
  const events = await readSse(res, {
    until: (e) => {
      if (e.type === 'started') {
        streamUrl = e.streamUrl;
        stream = readStream(streamUrl, seen.open);
      }
      return e.type === 'complete' || e.type === 'error';
    },
  });
  expect(events.at(-1)).toMatchObject({ type: 'error', code: 'PROVIDER_A_GENERATION_ERROR' });
  expect(events.some((e) => e.type === 'complete')).toBe(false);
  // The client had audio, then the stream was cut: no clean end that would pass for a whole file.
  const read = await stream;
  expect(read.firstBytes).toBeGreaterThan(0);
  expect(read.failed).toBe(true);
  // Bytes had been handed on: the broken call was not retried.
  expect(requestsFor(first)).toHaveLength(1);

  // Nothing answers for the broken audio: no file, no stream, no chunk.
  const hash = streamUrl.split('/').at(-2)!;
  expect((await gw.request(`/api/v1/audio/${hash}`)).status).toBe(404);
  expect((await gw.request(streamUrl)).status).toBe(404);
  expect((await gw.request(`/api/v1/audio/${hash}/chunks/0`)).status).toBe(404);

  // The same request again generates anew (the vendor is well again).
  vendor.reset(async () => ({ status: 200, headers: { 'content-type': 'audio/wav' }, body: wav }));
  const again = await readSse(await generate(text, 'mp3'), { until: (e) => e.type === 'complete' || e.type === 'error' });
  expect(again.at(-1)).toMatchObject({ type: 'complete', cached: false, hash });
  expect(requestsFor(first)).toHaveLength(1);
  const file = Buffer.from(await (await gw.request(`/api/v1/audio/${hash}`)).arrayBuffer());
  await decode(file, 'mp3');
});
