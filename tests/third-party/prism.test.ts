import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_KEY, useGateway } from '../helpers/gateway';

/**
 * Prism (Stoplight) as a validating proxy in front of the gateway, `prism proxy --errors`, with the
 * served document: a request or answer that breaks the contract becomes an error. An SSE call and
 * then a JSON call on the same kept-alive connection both succeed.
 */
const gw = useGateway();
const PRISM = require.resolve('@stoplight/prism-cli/dist/index.js');
let prism: ChildProcess | undefined;
let prismPort = 0;
let dir: string;
let output = '';

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-prism-'));
  const doc = path.join(dir, 'openapi.json');
  fs.writeFileSync(doc, await (await gw.request('/api/openapi.json', { auth: null })).text());
  prismPort = await freePort();
  prism = spawn(process.execPath, [PRISM, 'proxy', '--errors', '-h', '127.0.0.1', '-p', String(prismPort), doc, gw.url], { stdio: ['ignore', 'pipe', 'pipe'] });
  prism.stdout!.on('data', (d) => (output += d));
  prism.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 120_000;
  while (!/listening/i.test(output)) {
    if (prism.exitCode !== null || Date.now() > deadline) throw new Error(`prism did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, 180_000);

afterAll(async () => {
  if (prism && prism.exitCode === null) {
    const exited = new Promise((r) => prism!.once('exit', r));
    prism.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  reusedSocket: boolean;
}

function call(agent: http.Agent, method: string, pathname: string, body?: unknown, accept = 'application/json'): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: '127.0.0.1',
        port: prismPort,
        method,
        path: pathname,
        headers: {
          authorization: `Bearer ${ADMIN_KEY}`,
          accept,
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, reusedSocket: req.reusedSocket }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

test('through Prism: an SSE call, then a JSON call on the same connection, both succeed', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const sse = await call(
      agent,
      'POST',
      '/api/v1/generate-progressive',
      { text: 'Streamed through the validating proxy.', options: { provider: 'mock' } },
      'text/event-stream',
    );
    expect({ status: sse.status, output: sse.status === 200 ? '' : output }).toEqual({ status: 200, output: '' });
    expect(sse.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(sse.body).toContain('"type":"complete"');

    const json = await call(agent, 'GET', '/v1/requirements');
    expect({ status: json.status, body: json.status === 200 ? '' : json.body }).toEqual({ status: 200, body: '' });
    expect(json.reusedSocket).toBe(true);
    expect(JSON.parse(json.body)).toHaveProperty('data');
  } finally {
    agent.destroy();
  }
});
