import { useGateway } from '../helpers/gateway';

const gw = useGateway({ API_KEY: 'tts-production-key', API_RATE_LIMIT: '5' });

test('with API_KEY set, TTS needs the key (or any key with TTS permission); admin paths stay admin-only', async () => {
  const none = await gw.request('/api/v1/voices', { auth: null });
  expect(none.status).toBe(401);
  const body: any = await none.json();
  expect(body.error).toMatchObject({ code: 'AUTHENTICATION_ERROR' });
  expect(body.error.details.requestId).toBeDefined();
  const ok = await gw.request('/api/v1/voices', { auth: 'tts-production-key' });
  expect(ok.status).toBe(200);
  const admin = await gw.request('/api/v1/cache/stats', { auth: 'tts-production-key' });
  expect(admin.status).toBe(403);
  expect(((await admin.json()) as any).error.code).toBe('AUTHORIZATION_ERROR');
  const health = await gw.request('/api/v1/health', { auth: null });
  expect([200, 429]).toContain(health.status);
});

test('per-IP limit: RateLimit-* headers count down, then 429 RATE_LIMIT_EXCEEDED', async () => {
  let last: Response | undefined;
  const remaining: number[] = [];
  for (let i = 0; i < 8; i++) {
    last = await gw.request('/api/v1/health/live', { auth: null });
    if (last.status === 200) remaining.push(Number(last.headers.get('ratelimit-remaining')));
    else break;
    await last.arrayBuffer();
  }
  expect(last!.status).toBe(429);
  expect(last!.headers.get('ratelimit-limit')).toBe('5');
  expect(Number(last!.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
  const body: any = await last!.json();
  expect(body.error.code).toBe('RATE_LIMIT_EXCEEDED');
  for (let i = 1; i < remaining.length; i++) expect(remaining[i]).toBe(remaining[i - 1] - 1);
});
