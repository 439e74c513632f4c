import net from 'node:net';
import { ADMIN_KEY, useGateway } from '../helpers/gateway';

/**
 * Streamed answers honour `Connection: close` (issue 31): SSE on REST and tRPC say `Connection:
 * close` when the client asked for it, and the server closes the socket after the stream.
 */
const gw = useGateway();

/** Sends one raw HTTP/1.1 request and reads until the server closes the socket (or 20 s pass). */
function rawExchange(request: string): Promise<{ head: string; body: string; closedByServer: boolean }> {
  const { port } = new URL(gw.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => finish(false), 20_000);
    const finish = (closedByServer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      resolve({ head: text.slice(0, split), body: text.slice(split + 4), closedByServer });
    };
    socket.on('data', (d) => chunks.push(d));
    socket.on('end', () => finish(true));
    socket.on('error', reject);
    socket.write(request);
  });
}

const connectionOf = (head: string) => /^connection:\s*(.+)$/im.exec(head)?.[1].trim().toLowerCase();

test('REST SSE: Connection: close is answered with close, and the socket closes after the stream', async () => {
  const body = JSON.stringify({ text: 'A short streamed sentence.', options: { provider: 'mock' } });
  const r = await rawExchange(
    `POST /api/v1/generate-progressive HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  expect(r.head).toMatch(/^HTTP\/1\.1 200/);
  expect(r.head).toMatch(/text\/event-stream/i);
  expect(connectionOf(r.head)).toBe('close');
  expect(r.body).toContain('"type":"complete"');
  expect(r.closedByServer).toBe(true);
});

test('tRPC SSE subscription: Connection: close is answered with close, and the socket closes after the stream', async () => {
  const input = encodeURIComponent(JSON.stringify({ text: 'A short streamed sentence.', options: { provider: 'mock' } }));
  const r = await rawExchange(
    `GET /trpc/tts.generateProgressive?input=${input} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n`,
  );
  expect(r.head).toMatch(/^HTTP\/1\.1 200/);
  expect(r.head).toMatch(/text\/event-stream/i);
  expect(connectionOf(r.head)).toBe('close');
  expect(r.body).toContain('complete');
  expect(r.closedByServer).toBe(true);
});

test('without Connection: close, the SSE answer keeps the connection alive', async () => {
  const body = JSON.stringify({ text: 'Another streamed sentence.', options: { provider: 'mock' } });
  const { port } = new URL(gw.url);
  const head = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let text = '';
    socket.on('data', (d) => {
      text += d.toString('utf8');
      if (text.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(text.slice(0, text.indexOf('\r\n\r\n')));
      }
    });
    socket.on('error', reject);
    socket.write(
      `POST /api/v1/generate-progressive HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
  expect(connectionOf(head)).toBe('keep-alive');
});
