import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTurnWrites } from '../../gateway/front/turn-writes';

/**
 * The seam's answers are written at the end of the loop turn that made them, all of that turn
 * together, each then logged; an answer something else already sent is left alone.
 */
describe('turn writes', () => {
  let server: http.Server;
  let url: string;
  const seen: { headersSentAtSend: boolean; order: string[] }[] = [];
  const writes = createTurnWrites();

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const order: string[] = [];
      const record = { headersSentAtSend: false, order };
      seen.push(record);
      if (req.url === '/already-answered') {
        res.writeHead(409, { 'Content-Length': '5' });
        res.end('taken');
      }
      const body = Buffer.from(`answer for ${req.url}`);
      writes.send(res, ['X-Kind', 'seam', 'Content-Length', String(body.length)], body, () => order.push('after'));
      record.headersSentAtSend = req.url === '/already-answered' ? false : res.headersSent;
      order.push('sent');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => (seen.length = 0));

  it('writes each answer after its handler returned, then calls after', async () => {
    const res = await fetch(`${url}/one`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-kind')).toBe('seam');
    expect(await res.text()).toBe('answer for /one');
    expect(seen).toEqual([{ headersSentAtSend: false, order: ['sent', 'after'] }]);
  });

  it('answers many requests arriving together, each with its own body', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 20 });
    const get = (path: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        http
          .get(`${url}${path}`, { agent }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode!, text }));
          })
          .on('error', reject);
      });
    const paths = Array.from({ length: 60 }, (_, i) => `/many/${i}`);
    const answers = await Promise.all(paths.map(get));
    agent.destroy();
    expect(answers).toEqual(paths.map((p) => ({ status: 200, text: `answer for ${p}` })));
    expect(seen.every((s) => s.order.join() === 'sent,after')).toBe(true);
  });

  it('writes the rest of a turn when one answer cannot be written', async () => {
    const turn = createTurnWrites();
    const local = http.createServer((req, res) => {
      const body = Buffer.from(`answer for ${req.url}`);
      // A header value node refuses: this answer throws when written, its connection is dropped.
      const head = req.url === '/bad' ? ['X-Bad', 'line\nbreak'] : ['Content-Length', String(body.length)];
      turn.send(res, head, body, () => undefined);
    });
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(local.address() as AddressInfo).port}`;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
    const get = (path: string) =>
      new Promise<string>((resolve) => {
        http
          .get(`${base}${path}`, { agent }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (text += c));
            res.on('end', () => resolve(text));
          })
          .on('error', (err: NodeJS.ErrnoException) => resolve(`error ${err.code}`));
      });
    const answers = await Promise.all(['/a', '/bad', '/b', '/c'].map(get));
    agent.destroy();
    await new Promise<void>((resolve) => local.close(() => resolve()));
    expect(answers[1]).toMatch(/^error /);
    expect([answers[0], answers[2], answers[3]]).toEqual(['answer for /a', 'answer for /b', 'answer for /c']);
  });

  it('leaves an answer already sent alone, and does not log it again', async () => {
    const res = await fetch(`${url}/already-answered`);
    expect(res.status).toBe(409);
    expect(await res.text()).toBe('taken');
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen[0].order).toEqual(['sent']);
  });
});
