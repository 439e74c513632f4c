import http from 'node:http';
import { DRAIN_GRACE_MS } from '../../gateway/start/shutdown';
import { startGateway, type TestGateway } from '../helpers/gateway';

/**
 * Stopping the gateway lets the answers in flight finish, closes idle keep-alive connections and
 * the busy ones once their answer is out, and takes no new connection (gateway/start/shutdown.ts).
 */
describe('shutdown drains the HTTP server', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    // A generation that is not cached takes the mock provider's latency: an answer in flight.
    gw = await startGateway({ MOCK_LATENCY_MS: '2000' });
  }, 180_000);
  afterAll(() => gw.close());

  const get = (agent: http.Agent, path: string, init: { method?: string; body?: string } = {}) =>
    new Promise<{ status: number; text: string; socket: import('node:net').Socket }>((resolve, reject) => {
      const req = http.request(
        `${gw.url}${path}`,
        { agent, method: init.method ?? 'GET', headers: init.body ? { 'content-type': 'application/json' } : {} },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, text, socket: req.socket! }));
        },
      );
      req.on('error', reject);
      req.end(init.body);
    });

  it('finishes the answer in flight, closes every connection, then refuses new ones', async () => {
    const idleAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const busyAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const idle = await get(idleAgent, '/api/v1/health');
    expect(idle.status).toBe(200);
    const idleClosed = new Promise<void>((resolve) => idle.socket.once('close', () => resolve()));

    const inFlight = get(busyAgent, '/api/v1/generate', { method: 'POST', body: JSON.stringify({ text: 'Drained, not dropped.' }) });
    // Long enough for the request to reach its handler on a loaded machine, well inside the provider's latency.
    await new Promise((resolve) => setTimeout(resolve, 700));
    const stopAt = Date.now();
    const stopped = gw.stop();

    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ cached: false });
    const busyClosed = answer.socket.destroyed ? Promise.resolve() : new Promise<void>((resolve) => answer.socket.once('close', () => resolve()));
    await Promise.all([idleClosed, busyClosed, stopped]);
    // Closed as each fell idle, not cut when the grace period ran out.
    expect(Date.now() - stopAt).toBeLessThan(DRAIN_GRACE_MS / 2);

    await expect(get(new http.Agent(), '/api/v1/health')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    idleAgent.destroy();
    busyAgent.destroy();
  }, 30_000);
});
