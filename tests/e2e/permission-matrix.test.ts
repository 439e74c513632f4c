import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
} from 'graphql';
import { buildGraphqlSchema } from '../../gateway/graphql';
import { InProcessEventBus } from '../../domain/events/bus';
import { appRouter } from '../../trpc/router';
import { issueKey, startGateway, type TestGateway } from '../helpers/gateway';

/**
 * Every GraphQL root field and every tRPC query/mutation, called with no key and with a key that
 * holds only an unrelated permission: compliance operations must answer AUTHENTICATION_ERROR and
 * AUTHORIZATION_ERROR; the TTS ones are open (no API_KEY configured) except cache administration.
 * The lists come from the live schema and router, so a new operation is covered automatically.
 */
const OPEN_GRAPHQL = new Set([
  'generate',
  'generateAsync',
  'generation',
  'estimate',
  'providers',
  'voices',
  'languages',
  'hashInfo',
  'hashLookup',
  'hashExists',
  'audioMetadata',
  'audioExists',
  'providerStats',
  'health',
  'ready',
  'live',
]);
const OPEN_TRPC = new Set([
  'tts.generate',
  'tts.generateAsync',
  'tts.generation',
  'tts.estimate',
  'tts.providers',
  'tts.voices',
  'tts.languages',
  'tts.hashInfo',
  'tts.hashLookup',
  'tts.hashExists',
  'tts.audioMetadata',
  'tts.providerStats',
  'tts.health',
  'tts.ready',
  'tts.live',
]);

/** Any valid key may describe itself (tests/e2e/viewer.test.ts checks it answers 401 without one). */
const ANY_KEY_GRAPHQL = new Set(['viewer']);
const ANY_KEY_TRPC = new Set(['auth.viewer']);

let gw: TestGateway;
let unrelatedKey: string;
beforeAll(async () => {
  gw = await startGateway();
  unrelatedKey = await issueKey(gw, ['tts:read']);
}, 180_000);
afterAll(async () => {
  await gw?.close();
});

/** A value of the right shape for an argument type (content does not matter: access is checked first). */
function sample(type: GraphQLInputType, depth = 0): unknown {
  if (isNonNullType(type)) return sample(type.ofType, depth);
  if (isListType(type)) return [];
  if (isEnumType(type)) return type.getValues()[0].name;
  if (isInputObjectType(type)) {
    const out: Record<string, unknown> = {};
    for (const f of Object.values(type.getFields())) if (isNonNullType(f.type) && depth < 4) out[f.name] = sample(f.type, depth + 1);
    return out;
  }
  if (isScalarType(type)) {
    if (type.name === 'Int' || type.name === 'Float') return 1;
    if (type.name === 'Boolean') return true;
    if (type.name === 'JSONObject') return {};
    if (type.name === 'DateTime') return '2026-01-01T00:00:00Z';
    return 'x';
  }
  return null;
}

function operationFor(kind: 'query' | 'mutation', field: GraphQLField<unknown, unknown>) {
  const required = field.args.filter((a) => isNonNullType(a.type));
  const vars = required.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
  const args = required.map((a) => `${a.name}: $${a.name}`).join(', ');
  const named = getNamedType(field.type);
  const selection = isObjectType(named) || isUnionType(named) ? ' { __typename }' : '';
  const query = `${kind}${vars ? `(${vars})` : ''} { ${field.name}${args ? `(${args})` : ''}${selection} }`;
  const variables = Object.fromEntries(required.map((a) => [a.name, sample(a.type)]));
  return { query, variables };
}

test('every GraphQL query and mutation checks the key and the permission', async () => {
  const schema = await buildGraphqlSchema(new InProcessEventBus());
  const roots: ['query' | 'mutation', GraphQLObjectType][] = [
    ['query', schema.getQueryType()!],
    ['mutation', schema.getMutationType()!],
  ];
  const checked: string[] = [];
  for (const [kind, type] of roots) {
    for (const field of Object.values(type.getFields())) {
      if (OPEN_GRAPHQL.has(field.name) || ANY_KEY_GRAPHQL.has(field.name)) continue;
      const op = operationFor(kind, field);
      for (const [auth, expected] of [
        [null, 'AUTHENTICATION_ERROR'],
        ['sk_unknown_key_for_matrix', 'AUTHENTICATION_ERROR'],
        [unrelatedKey, 'AUTHORIZATION_ERROR'],
      ] as const) {
        const res = await gw.request('/graphql', { method: 'POST', json: op, auth });
        const body: any = await res.json();
        const code = body.errors?.[0]?.extensions?.code;
        if (code !== expected)
          throw new Error(
            `${kind} ${field.name} with ${auth ? 'a key' : 'no key'}: expected ${expected}, got ${code ?? 'data'} ${JSON.stringify(body).slice(0, 300)}`,
          );
      }
      checked.push(field.name);
    }
  }
  expect(checked.length).toBeGreaterThan(30);
  expect(checked).toEqual(expect.arrayContaining(['requirements', 'createRequirement', 'dashboardMetrics', 'createWebhook', 'cacheStats', 'clearCache']));
});

test('every tRPC query and mutation checks the key and the permission', async () => {
  const procedures = (appRouter as any)._def.procedures as Record<string, { _def: { type: string } }>;
  const checked: string[] = [];
  for (const [path, proc] of Object.entries(procedures)) {
    const type = proc._def.type;
    if (type === 'subscription' || OPEN_TRPC.has(path) || ANY_KEY_TRPC.has(path)) continue;
    for (const [auth, expected] of [
      [null, 'UNAUTHORIZED'],
      ['sk_unknown_key_for_matrix', 'UNAUTHORIZED'],
      [unrelatedKey, 'FORBIDDEN'],
    ] as const) {
      const input = { id: 'x', hash: 'a'.repeat(64), reportId: 'x', framework: 'gdpr' };
      const res =
        type === 'query'
          ? await gw.request(`/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, { auth })
          : await gw.request(`/trpc/${path}`, { method: 'POST', json: input, auth });
      const body: any = await res.json();
      const code = body.error?.data?.code;
      if (code !== expected)
        throw new Error(`${type} ${path} with ${auth ? 'a key' : 'no key'}: expected ${expected}, got ${code ?? 'data'} ${JSON.stringify(body).slice(0, 300)}`);
    }
    checked.push(path);
  }
  expect(checked.length).toBeGreaterThan(30);
  expect(checked).toEqual(
    expect.arrayContaining([
      'compliance.requirements',
      'compliance.createRequirement',
      'live.dashboardMetrics',
      'auth.createApiKey',
      'tts.cacheStats',
      'tts.clearCache',
    ]),
  );
});
