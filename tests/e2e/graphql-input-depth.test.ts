import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { ADMIN_KEY, graphql, useGateway } from '../helpers/gateway';

/**
 * Issue 37 finding 9: a literal nested ~1,700 levels deep overflowed the stack (INTERNAL_ERROR
 * 500). Input depth is limited before graphql-js's parser recurses: too deep is a 400 naming the
 * limit (GRAPHQL_INPUT_TOO_DEEP), on HTTP and graphql-ws alike; ordinary nesting still works.
 */
const gw = useGateway();

const nestedObject = (levels: number) => '{a:'.repeat(levels) + '1' + '}'.repeat(levels);
const nestedList = (levels: number) => '['.repeat(levels) + '1' + ']'.repeat(levels);
const withHeaders = (literal: string) =>
  `mutation { generateSpeechAsync(input: {text: "deep", webhook: {url: "https://example.com/h", headers: ${literal}}}) { hash } }`;

test.each([
  ['object', nestedObject(1700)],
  ['list', nestedList(1700)],
  ['object, 20,000 levels', nestedObject(20_000)],
])('a %s literal nested too deep answers 400 GRAPHQL_INPUT_TOO_DEEP over HTTP, not a 500', async (_kind, literal) => {
  const { status, body } = await graphql(gw, withHeaders(literal));
  expect(status).toBe(400);
  expect(body.errors).toHaveLength(1);
  expect(body.errors[0].extensions).toMatchObject({ code: 'GRAPHQL_INPUT_TOO_DEEP' });
  expect(body.errors[0].message).toMatch(/nested more than \d+ levels/);
});

test('the same document over graphql-ws is refused with the same code, and the socket stays usable', async () => {
  const client = createClient({
    url: gw.url.replace('http', 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${ADMIN_KEY}` },
    retryAttempts: 0,
  });
  try {
    const run = (query: string) =>
      new Promise<any>((resolve) => {
        const out: any[] = [];
        client.subscribe({ query }, { next: (v) => out.push(v), error: (e) => resolve({ error: e }), complete: () => resolve({ result: out[0] }) });
      });
    const refused = await run(withHeaders(nestedObject(1700)));
    const errors = refused.error ?? refused.result?.errors;
    expect(Array.isArray(errors)).toBe(true);
    expect(errors[0].extensions).toMatchObject({ code: 'GRAPHQL_INPUT_TOO_DEEP' });
    const fine = await run('{ viewer { name } }');
    expect(fine.result?.data?.viewer).toBeTruthy();
  } finally {
    await client.dispose();
  }
});

test('ordinary nesting (a few levels, strings with brackets, comments) is parsed as before', async () => {
  const { status, body } = await graphql(
    gw,
    `
      # a comment with {{{{ [[[[
      query {
        viewer {
          name
        }
      }
    `,
  );
  expect(status).toBe(200);
  expect(body.data.viewer).toBeTruthy();
  const deepString = `query { requirements(filter: {search: "${'{['.repeat(2000)}"}) { totalCount } }`;
  const res = await graphql(gw, deepString);
  expect(res.body.errors?.[0]?.extensions?.code).not.toBe('GRAPHQL_INPUT_TOO_DEEP');
});
