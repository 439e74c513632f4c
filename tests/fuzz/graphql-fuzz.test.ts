import fc from 'fast-check';
import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { startGateway, ADMIN_KEY, type TestGateway } from '../helpers/gateway';
import { closeAgent, deeplyNested, leakIn, rawRequest } from './hostile';

/**
 * Random GraphQL documents built from the live schema (so new fields are covered), plus garbage,
 * deep, wide and batched ones: never a 5xx, every error carries `extensions.code`, no resolver
 * ends in INTERNAL_ERROR, and no body leaks a stack, a module path or SQL.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 40) * 8;
const DOCUMENTED_5XX_CODES = new Set(['PROVIDER_NOT_CONFIGURED']);

let gw: TestGateway;
let schema: GraphQLSchema;
beforeAll(async () => {
  gw = await startGateway();
  const res = await gw.request('/graphql', { method: 'POST', json: { query: getIntrospectionQuery() } });
  schema = buildClientSchema(((await res.json()) as any).data);
}, 60_000);
afterAll(async () => {
  closeAgent();
  await gw?.close();
});

async function post(body: string, headers: Record<string, string> = {}) {
  return rawRequest(gw.url, {
    method: 'post',
    path: '/graphql',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}`, ...headers },
    body,
  });
}

function problemsOf(res: { status: number; body: string }): string[] {
  const problems: string[] = [];
  if (res.status >= 500) problems.push(`status ${res.status}`);
  const leak = leakIn(res.body);
  if (leak) problems.push(`leak (${leak})`);
  let body: any;
  try {
    body = JSON.parse(res.body);
  } catch {
    problems.push('body is not JSON');
    return problems;
  }
  const errors = Array.isArray(body?.errors) ? body.errors : [];
  if (res.status >= 400 && !errors.length) problems.push('a 4xx without errors[]');
  for (const e of errors) {
    const code = e?.extensions?.code;
    if (typeof code !== 'string') problems.push(`error without extensions.code: ${JSON.stringify(e).slice(0, 200)}`);
    else if (/INTERNAL/.test(code) && !DOCUMENTED_5XX_CODES.has(code)) problems.push(`internal error: ${JSON.stringify(e).slice(0, 300)}`);
    if (e?.extensions?.stacktrace) problems.push('stacktrace in extensions');
  }
  return problems;
}

async function expectAcceptable(doc: unknown) {
  const res = await post(typeof doc === 'string' ? doc : JSON.stringify(doc));
  const problems = problemsOf(res);
  if (problems.length) throw new Error(`${JSON.stringify(doc).slice(0, 400)} → ${res.status}: ${problems.join('; ')}\n${res.body.slice(0, 400)}`);
  return res;
}

// --- documents from the schema -------------------------------------------------------------------

const wildLiteral = fc.oneof(
  fc.constantFrom(
    'null',
    '1e308',
    '-1e308',
    '9999999999999999999999',
    '0',
    '-1',
    '1.5',
    'true',
    '"\\u0000"',
    '"\\ud800"',
    '"😀"',
    '""',
    '[]',
    '{}',
    '[null]',
    'ENUM_NOPE',
    '$undeclared',
  ),
  fc.string({ maxLength: 30 }).map((s) => JSON.stringify(s)),
  fc.constant(JSON.stringify('a'.repeat(150_000))),
  fc.constant(`[${Array.from({ length: 5000 }, (_, i) => i).join(',')}]`),
);

function literalFor(type: GraphQLInputType, depth: number): fc.Arbitrary<string> {
  if (depth > 4) return wildLiteral;
  if (isNonNullType(type)) return literalFor(type.ofType, depth);
  let plausible: fc.Arbitrary<string>;
  if (isListType(type)) plausible = fc.array(literalFor(type.ofType, depth + 1), { maxLength: 4 }).map((xs) => `[${xs.join(',')}]`);
  else if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    plausible = fc.tuple(...fields.map((f) => fc.option(literalFor(f.type, depth + 1), { freq: 3 }))).map(
      (vals) =>
        `{${fields
          .map((f, i) => (vals[i] === null ? '' : `${f.name}: ${vals[i]}`))
          .filter(Boolean)
          .join(', ')}}`,
    );
  } else if (isEnumType(type)) plausible = fc.constantFrom(...type.getValues().map((v) => v.name));
  else if (isScalarType(type)) {
    plausible =
      type.name === 'Int' || type.name === 'Float'
        ? fc.oneof(fc.integer().map(String), fc.constantFrom('1e308', '-0', '2147483648'))
        : type.name === 'Boolean'
          ? fc.constantFrom('true', 'false')
          : fc.oneof(
              fc.constantFrom('"mock"', '"provider_a"', '"ISO27001"', '"SOC2"', '"does-not-exist"', '"%00"', '"../x"'),
              fc.string({ maxLength: 20 }).map((s) => JSON.stringify(s)),
            );
  } else plausible = wildLiteral;
  return fc.oneof({ weight: 4, arbitrary: plausible }, { weight: 1, arbitrary: wildLiteral });
}

function selectionFor(type: GraphQLObjectType, depth: number): fc.Arbitrary<string> {
  const fields = Object.values(type.getFields());
  const leaves = fields.filter((f) => !isObjectType(getNamedType(f.type)));
  const objects = depth < 3 ? fields.filter((f) => isObjectType(getNamedType(f.type)) && !f.args.some((a) => isNonNullType(a.type))) : [];
  const pick = fc.subarray([...leaves.map((f) => f.name), '__typename'], { minLength: 1, maxLength: Math.min(6, leaves.length + 1) });
  if (!objects.length) return pick.map((xs) => `{ ${xs.join(' ')} }`);
  return fc
    .tuple(pick, fc.subarray(objects, { maxLength: Math.min(2, objects.length) }))
    .chain(([names, subs]) =>
      fc
        .tuple(...subs.map((f) => selectionFor(getNamedType(f.type) as GraphQLObjectType, depth + 1).map((sel) => `${f.name} ${sel}`)))
        .map((subSels) => `{ ${[...names, ...subSels].join(' ')} }`),
    );
}

function callFor(field: GraphQLField<unknown, unknown>): fc.Arbitrary<string> {
  const args = fc.tuple(...field.args.map((a) => fc.option(literalFor(a.type, 0), { freq: isNonNullType(a.type) ? 8 : 2 }))).map((vals) => {
    const given = field.args.map((a, i) => (vals[i] === null ? '' : `${a.name}: ${vals[i]}`)).filter(Boolean);
    return given.length ? `(${given.join(', ')})` : '';
  });
  const named = getNamedType(field.type);
  const selection = isObjectType(named) ? selectionFor(named, 0) : fc.constant('');
  return fc.tuple(args, selection).map(([a, s]) => `${field.name}${a} ${s}`);
}

function schemaDocuments(): fc.Arbitrary<unknown> {
  const roots: [string, GraphQLObjectType | null | undefined][] = [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
  ];
  const calls = roots.flatMap(([op, t]) => (t ? Object.values(t.getFields()).map((f) => ({ op, field: f })) : []));
  return fc.constantFrom(...calls).chain(({ op, field }) => callFor(field).map((call) => ({ query: `${op} { ${call} }` })));
}

/** Variables declared with the right type, given values of the wrong one. */
function variableDocuments(): fc.Arbitrary<unknown> {
  const fields = Object.values(schema.getQueryType()!.getFields()).filter((f) => f.args.length);
  const jsonWild = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(1e308, -0, '\u0000', '\uD800', 'a'.repeat(120_000), [], {}, null));
  return fc.constantFrom(...fields).chain((field) => {
    const decls = field.args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
    const use = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
    const named = getNamedType(field.type);
    const sel = isObjectType(named) ? '{ __typename }' : '';
    return fc
      .dictionary(fc.constantFrom(...field.args.map((a) => a.name), 'extra'), jsonWild)
      .map((variables) => ({ query: `query Q(${decls}) { ${field.name}(${use}) ${sel} }`, variables }));
  });
}

const garbageDocuments: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 200 }).map((query) => ({ query })),
  fc.string({ unit: 'binary', maxLength: 200 }).map((query) => ({ query })),
  fc
    .array(
      fc.constantFrom(
        '{',
        '}',
        '(',
        ')',
        'query',
        'mutation',
        'fragment',
        '...',
        'on',
        '$',
        ':',
        '@skip',
        '"',
        'x',
        '__typename',
        '[',
        ']',
        '!',
        '=',
        '#',
        '\n',
      ),
      { maxLength: 60 },
    )
    .map((ts) => ({ query: ts.join(' ') })),
  fc.constantFrom<unknown>(
    { query: null },
    { query: 42 },
    { query: ['{ __typename }'] },
    { query: '{ __typename }', variables: 'not-an-object' },
    { query: '{ __typename }', operationName: 42 },
    { query: 'query A { __typename } query B { __typename }' },
    { query: 'query A { __typename }', operationName: 'Nope' },
    { query: 'subscription { __typename }' },
    { query: '{ __schema { types { fields { type { ofType { ofType { ofType { name } } } } } } } }' },
    { query: 'fragment F on Query { ...F } { ...F }' },
    { query: '{ __typename @skip(if: true) @skip(if: true) }' },
    {},
    [],
    null,
    'just a string',
  ),
);

test('the schema under test has query and mutation fields', () => {
  expect(Object.keys(schema.getQueryType()!.getFields()).length).toBeGreaterThan(5);
  expect(Object.keys(schema.getMutationType()!.getFields()).length).toBeGreaterThan(3);
});

test('documents generated from the schema, with wrong and extreme argument values, never fail internally', async () => {
  await fc.assert(
    fc.asyncProperty(schemaDocuments(), async (doc) => void (await expectAcceptable(doc))),
    { numRuns: RUNS },
  );
});

test('variables of the wrong type are a validation error, not an internal one', async () => {
  await fc.assert(
    fc.asyncProperty(variableDocuments(), async (doc) => void (await expectAcceptable(doc))),
    { numRuns: RUNS / 2 },
  );
});

test('syntax garbage and malformed request bodies get a 4xx with extensions.code', async () => {
  await fc.assert(
    fc.asyncProperty(garbageDocuments, async (doc) => {
      const res = await expectAcceptable(doc);
      expect(res.status).toBeLessThan(500);
    }),
    { numRuns: RUNS / 2 },
  );
});

test('100-level nesting, 500 aliases, 5000-element lists and a 10000-level JSON body are refused, not executed', async () => {
  const deep = { query: `{ ${'a { '.repeat(100)}b${' }'.repeat(100)} }` };
  const aliases = { query: `{ ${Array.from({ length: 500 }, (_, i) => `a${i}: voices`).join(' ')} }` };
  const bigList = { query: `{ voices(provider: [${Array.from({ length: 5000 }, () => '"x"').join(',')}]) }` };
  for (const doc of [deep, aliases, bigList]) {
    const res = await expectAcceptable(doc);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).errors[0].extensions.code).toEqual(expect.any(String));
  }
  const nestedJson = await post(`{"query":"{ __typename }","variables":${deeplyNested(10_000, 'object')}}`);
  expect(problemsOf(nestedJson)).toEqual([]);
  expect(nestedJson.status).toBeLessThan(500);
});

test('batched requests (a JSON array body) are rejected with a 400', async () => {
  const res = await post(JSON.stringify([{ query: '{ __typename }' }, { query: '{ __typename }' }]));
  expect(res.status).toBe(400);
  expect(leakIn(res.body)).toBeNull();
});

test('non-UTF-8 bytes and bogus content types are a 4xx', async () => {
  for (const [body, ct] of [
    [Buffer.from([0xff, 0xfe, 0x7b, 0x7d]), 'application/json'],
    [Buffer.from('{"query":"{ \xc3\x28 }"}', 'latin1'), 'application/json'],
    ['{ __typename }', 'text/plain'],
    ['query={__typename}', 'application/x-www-form-urlencoded'],
    ['{"query":"{ __typename }"}', 'application/json; charset=utf-16'],
  ] as const) {
    const res = await rawRequest(gw.url, { method: 'post', path: '/graphql', headers: { 'content-type': ct, authorization: `Bearer ${ADMIN_KEY}` }, body });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(leakIn(res.body)).toBeNull();
  }
});

test('after the fuzzing the server still answers /api/v1/health/live', async () => {
  const res = await fetch(`${gw.url}/api/v1/health/live`);
  expect(res.status).toBe(200);
});

test('operation names are resolved as graphql-js does, also on the compiled path', async () => {
  const twoOps = 'query A { __typename } query B { frameworks { id } }';
  const unknown = await post(JSON.stringify({ query: 'query A { __typename }', operationName: 'Nope' }));
  expect(unknown.status).toBe(400);
  expect(JSON.parse(unknown.body).errors[0].extensions.code).toBe('OPERATION_RESOLUTION_FAILURE');
  const b = await post(JSON.stringify({ query: twoOps, operationName: 'B' }));
  expect(b.status).toBe(200);
  expect(JSON.parse(b.body).data.frameworks.length).toBeGreaterThan(0);
  const a = await post(JSON.stringify({ query: twoOps, operationName: 'A' }));
  expect(JSON.parse(a.body).data).toEqual({ __typename: 'Query' });
  const missing = await post(JSON.stringify({ query: twoOps }));
  expect(missing.status).toBe(400);
});
