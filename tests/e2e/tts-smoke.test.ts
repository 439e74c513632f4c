import { useGateway } from '../helpers/gateway';

const gw = useGateway();

test('generate then fetch audio', async () => {
  const res = await gw.request('/api/v1/generate', { method: 'POST', json: { text: 'Hello world.', options: { provider: 'mock' } } });
  const body: any = await res.json();
  expect(res.status).toBe(200);
  expect(body.cached).toBe(false);
  const audio = await gw.request(body.audioUrl);
  expect(audio.status).toBe(200);
  expect(audio.headers.get('content-type')).toBe('audio/mpeg');
  const again: any = await (await gw.request('/api/v1/generate', { method: 'POST', json: { text: 'Hello world.', options: { provider: 'mock' } } })).json();
  expect(again.cached).toBe(true);
  expect(again.hash).toBe(body.hash);
});
