import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { encode, synthesizeSpeechLike, type AudioFormat } from '../../domain/tts/audio';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
  json(): any;
}

export interface FakeReply {
  status: number;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Wait this long before answering (to exceed client timeouts or to overlap calls). */
  delayMs?: number;
  /**
   * A streamed body instead of `body`: each part written on its own, with chunked transfer (no
   * Content-Length), as vendors that stream their audio do.
   */
  parts?: FakePart[];
}

export interface FakePart {
  /** Awaited before this part is written: lets a test hold the rest of a body until it has seen something. */
  after?: Promise<unknown>;
  bytes?: Buffer | string;
  /** Cuts the connection here instead of writing (a body that breaks off midway). */
  cut?: boolean;
  /** Called once this part has been written (or the connection cut). */
  sent?: () => void;
}

export type Responder = (req: RecordedRequest, callNumber: number) => FakeReply | Promise<FakeReply>;

/** A loopback HTTP server standing in for a speech vendor; it records every request it gets. */
export interface FakeVendor {
  url: string;
  requests: RecordedRequest[];
  readonly inFlight: number;
  readonly maxInFlight: number;
  respond: Responder;
  reset(responder?: Responder): void;
  close(): Promise<void>;
}

export async function startFakeVendor(respond: Responder): Promise<FakeVendor> {
  let inFlight = 0;
  let maxInFlight = 0;
  const vendor: FakeVendor = {
    url: '',
    requests: [],
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    respond,
    reset(responder) {
      vendor.requests = [];
      maxInFlight = 0;
      if (responder) vendor.respond = responder;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer(async (req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    // A request stops counting when its response is done or the client hung up (timeouts).
    res.once('close', () => inFlight--);
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        text: body.toString('utf8'),
        json: () => JSON.parse(body.toString('utf8')),
      };
      vendor.requests.push(recorded);
      const reply = await vendor.respond(recorded, vendor.requests.length);
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (res.destroyed) return;
      if (reply.parts) {
        res.writeHead(reply.status, { 'transfer-encoding': 'chunked', ...reply.headers });
        res.flushHeaders();
        for (const part of reply.parts) {
          await part.after;
          if (res.destroyed) return;
          if (part.cut) {
            res.destroy();
            part.sent?.();
            return;
          }
          if (part.bytes !== undefined) await new Promise<void>((resolve) => res.write(Buffer.from(part.bytes!), () => resolve()));
          part.sent?.();
        }
        res.end();
        return;
      }
      const payload = reply.body === undefined ? Buffer.alloc(0) : Buffer.from(reply.body);
      res.writeHead(reply.status, { 'content-length': String(payload.length), ...reply.headers });
      res.end(payload);
    } catch (err) {
      if (!res.headersSent) res.writeHead(599).end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  vendor.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return vendor;
}

const audioCache = new Map<AudioFormat, Buffer>();

/** Real audio of a short phrase, as a vendor would send it. */
export async function sampleAudio(format: AudioFormat): Promise<Buffer> {
  let data = audioCache.get(format);
  if (!data) {
    const pcm = synthesizeSpeechLike({ text: 'Hello from the fake vendor.', voice: 'mock-voice-1', speed: 1 });
    data = (await encode(pcm, format)).data;
    audioCache.set(format, data);
  }
  return data;
}

export const audioReply = async (format: AudioFormat, contentType = 'application/octet-stream'): Promise<FakeReply> => ({
  status: 200,
  headers: { 'content-type': contentType },
  body: await sampleAudio(format),
});
