import { startFakeVendor, sampleAudio, type FakeVendor } from '../helpers/fake-vendor';
import { startGateway, issueKey, type TestGateway } from '../helpers/gateway';

/**
 * Issue 37 finding 8: every outbound call judges the address it connects to. Vendor base URLs are
 * the operator's: a literal address is used as configured, but a host name must resolve to a public
 * address when the connection is made (here `localhost`, which resolves to loopback).
 */
let vendor: FakeVendor;
let gw: TestGateway;

beforeAll(async () => {
  vendor = await startFakeVendor(async () => ({ status: 200, headers: { 'content-type': 'audio/mpeg' }, body: await sampleAudio('mp3') }));
  const port = new URL(vendor.url).port;
  gw = await startGateway({ PROVIDER_A_API_KEY: 'test', PROVIDER_A_BASE_URL: `http://localhost:${port}`, PROVIDER_MAX_ATTEMPTS: '1' });
});
afterAll(async () => {
  await gw?.close();
  await vendor?.close();
});

test('a vendor host name that resolves to loopback is refused when connecting; the vendor never sees the call', async () => {
  vendor.reset();
  const res = await gw.request('/api/v1/generate', {
    method: 'POST',
    json: { text: 'Guarded vendor call.', options: { provider: 'provider_a', voice: 'echo' } },
  });
  const body: any = await res.json();
  expect(res.status).toBeGreaterThanOrEqual(500);
  expect(body.error.code).toBe('PROVIDER_A_GENERATION_ERROR');
  expect(body.error.details).toMatchObject({ reason: 'network' });
  expect(vendor.requests).toHaveLength(0);
});

test.each(['[::ffff:0:127.0.0.1]', '[2002:7f00:1::]', '[2001::7f00:1]', '[100::1]', '[fec0::1]'])(
  'a speech callback to %s is refused with 400 before anything is queued',
  async (host) => {
    const res = await gw.request('/api/v1/generate', { method: 'POST', json: { text: `Callback to ${host}.`, webhook: { url: `http://${host}:9/hook` } } });
    const body: any = await res.json();
    expect(res.status).toBe(400);
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(body.error)).toMatch(/public address/);
  },
);

test.each(['[::ffff:0:127.0.0.1]', '[2002:7f00:1::]', '[64:ff9b::7f00:1]', '[fc00::1]'])('a compliance webhook to %s is refused with 400', async (host) => {
  const key = await issueKey(gw, ['manage:webhooks', 'read:requirements']);
  const res = await gw.request('/v1/webhooks', { method: 'POST', auth: key, json: { url: `http://${host}/hook`, events: ['requirement.created'] } });
  expect(res.status).toBe(400);
  expect(JSON.stringify(await res.json())).toMatch(/must target a public address/);
});
