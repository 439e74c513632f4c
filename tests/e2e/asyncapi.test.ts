import WebSocket from 'ws';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { WS_EVENT_TYPES } from '../../domain/compliance/events';
import { ADMIN_KEY, useGateway } from '../helpers/gateway';

const gw = useGateway();

/** Frames a live socket sends, checked against the payload schemas the AsyncAPI document publishes. */
test('AsyncAPI 3 document describes /v1/dashboard/ws, and real frames match its message schemas', async () => {
  const res = await gw.request('/api/asyncapi.json');
  expect(res.status).toBe(200);
  const doc: any = await res.json();
  expect(doc.asyncapi).toBe('3.0.0');
  const channel = doc.channels.dashboard;
  expect(channel.address).toBe('/v1/dashboard/ws');
  for (const t of [...WS_EVENT_TYPES, 'subscribe', 'unsubscribe', 'ping', 'subscribed', 'pong', 'error']) expect(channel.messages[t]).toBeDefined();
  // Every operation's message reference resolves within the document.
  for (const op of Object.values<any>(doc.operations)) {
    for (const m of op.messages) expect(channel.messages[m.$ref.split('/').pop()]).toBeDefined();
  }

  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const check = (name: string, payload: unknown) => {
    const validate = ajv.compile(channel.messages[name].payload);
    expect({ name, valid: validate(payload), errors: validate.errors ?? null }).toEqual({ name, valid: true, errors: null });
  };
  check('subscribe', channel.messages.subscribe.examples[0].payload);

  const ws = new WebSocket(`${gw.url.replace(/^http/, 'ws')}/v1/dashboard/ws?access_token=${ADMIN_KEY}`);
  const frames: any[] = [];
  const waitFor = (type: string) =>
    new Promise<any>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} frame; got ${JSON.stringify(frames)}`)), 15_000);
      const look = () => {
        const f = frames.find((x) => x.type === type);
        if (f) {
          clearTimeout(timer);
          ws.off('message', look);
          resolve(f);
        }
      };
      ws.on('message', look);
      look();
    });
  ws.on('message', (data) => frames.push(JSON.parse(String(data))));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  try {
    ws.send(JSON.stringify({ type: 'subscribe', events: ['requirement_updated'] }));
    check('subscribed', await waitFor('subscribed'));
    ws.send(JSON.stringify({ type: 'ping' }));
    check('pong', await waitFor('pong'));
    ws.send(JSON.stringify({ type: 'dance' }));
    check('error', await waitFor('error'));
    const created = await gw.request('/v1/requirements', { method: 'POST', json: { title: 'Live control', framework: 'gdpr', priority: 'high' } });
    expect(created.status).toBe(201);
    const event = await waitFor('requirement_updated');
    expect(event.event).toBe('requirement.created');
    check('requirement_updated', event);
    // A frame of another type fails its schema: the check above can fail.
    expect(ajv.compile(channel.messages.compliance_changed.payload)(event)).toBe(false);
  } finally {
    ws.close();
  }
});

test('the error frame and close code of a revoked key match the AsyncAPI document', async () => {
  const doc: any = await (await gw.request('/api/asyncapi.json')).json();
  const channel = doc.channels.dashboard;
  expect(doc.info.description).toContain('4401');
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const issued = await gw.request('/v1/auth/api-keys', { method: 'POST', json: { name: 'asyncapi revocation', permissions: ['read:dashboard'] } });
  const { id, key } = (await issued.json()) as { id: string; key: string };
  const ws = new WebSocket(`${gw.url.replace(/^http/, 'ws')}/v1/dashboard/ws?access_token=${key}`);
  const frames: any[] = [];
  ws.on('message', (data) => frames.push(JSON.parse(String(data))));
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  expect((await gw.request(`/v1/auth/api-keys/${id}`, { method: 'DELETE' })).status).toBe(200);
  expect(await closed).toBe(4401);
  const frame = frames.find((f) => f.type === 'error');
  expect(frame.data).toMatchObject({ code: 'AUTHENTICATION_ERROR', details: { reason: 'revoked' } });
  const validate = ajv.compile(channel.messages.error.payload);
  expect({ valid: validate(frame), errors: validate.errors ?? null }).toEqual({ valid: true, errors: null });
});
