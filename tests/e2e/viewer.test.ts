import { ADMIN_KEY, issueKey, startGateway, useGateway } from '../helpers/gateway';

/**
 * `viewer` (GraphQL) and `auth.viewer` (tRPC): the calling key describes itself, so a client such
 * as the web console offers only what the key may do. Without a valid key: AUTHENTICATION_ERROR.
 */
const VIEWER = 'query { viewer { keyId name isAdmin plan permissions speechOpen } }';

describe('viewer', () => {
  const gw = useGateway();

  async function viewerOf(auth: string | null) {
    const res = await gw.request('/graphql', { method: 'POST', json: { query: VIEWER }, auth });
    return (await res.json()) as any;
  }

  test('no key or an unknown key is refused with AUTHENTICATION_ERROR on GraphQL and tRPC', async () => {
    for (const auth of [null, 'sk_not_a_key_anyone_issued']) {
      expect((await viewerOf(auth)).errors[0].extensions.code).toBe('AUTHENTICATION_ERROR');
      const trpc: any = await (await gw.request('/trpc/auth.viewer', { auth })).json();
      expect(trpc.error.data.code).toBe('UNAUTHORIZED');
    }
  });

  test('an issued key sees exactly its own permissions, in catalogue order', async () => {
    const key = await issueKey(gw, ['write:requirements', 'read:requirements', 'tts:read']);
    const body = await viewerOf(key);
    expect(body.errors).toBeUndefined();
    expect(body.data.viewer).toMatchObject({
      name: 'test write:requirements,read:requirements,tts:read',
      isAdmin: false,
      plan: 'STANDARD',
      permissions: ['READ_REQUIREMENTS', 'WRITE_REQUIREMENTS', 'TTS_READ'],
      speechOpen: true,
    });
    expect(body.data.viewer.keyId).toMatch(/^key/);
    // tRPC speaks the REST strings; GraphQL names the same values as enum members.
    const trpc: any = await (await gw.request('/trpc/auth.viewer', { auth: key })).json();
    expect(trpc.result.data).toEqual({
      ...body.data.viewer,
      plan: 'standard',
      permissions: ['read:requirements', 'write:requirements', 'tts:read'],
    });
  });

  test('the admin key holds every permission', async () => {
    const body = await viewerOf(ADMIN_KEY);
    expect(body.data.viewer.isAdmin).toBe(true);
    expect(body.data.viewer.permissions).toEqual(expect.arrayContaining(['MANAGE_API_KEYS', 'TTS_ADMIN', 'READ_AUDIT_TRAIL', 'WRITE_COMPLIANCE']));
    expect(body.data.viewer.permissions).toHaveLength(15);
  });
});

test('with API_KEY configured, speech is not open and the deployment key sees only speech', async () => {
  const gw = await startGateway({ API_KEY: 'tts-deployment-key-0123456789' });
  try {
    const admin: any = await (await gw.request('/graphql', { method: 'POST', json: { query: VIEWER } })).json();
    expect(admin.data.viewer.speechOpen).toBe(false);
    const tts: any = await (await gw.request('/graphql', { method: 'POST', json: { query: VIEWER }, auth: 'tts-deployment-key-0123456789' })).json();
    expect(tts.data.viewer).toMatchObject({ permissions: ['TTS_GENERATE', 'TTS_READ'], speechOpen: false, isAdmin: false });
  } finally {
    await gw.close();
  }
}, 180_000);
