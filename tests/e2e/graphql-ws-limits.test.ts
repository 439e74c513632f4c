import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { GRAPHQL_LIMITS } from '../../gateway/graphql';
import { ADMIN_KEY, startGateway, type TestGateway } from '../helpers/gateway';

/**
 * The document limits HTTP enforces (depth, aliases, tokens) hold over graphql-ws too: a refused
 * document answers a GraphQL error naming the limit and the connection stays usable.
 */
let gw: TestGateway;
let client: Client;
let closed: unknown[] = [];
beforeAll(async () => {
  gw = await startGateway();
  client = createClient({
    url: `${gw.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${ADMIN_KEY}` },
    retryAttempts: 0,
    lazy: false, // one connection for the whole file: a server-side close would show up below
    on: { closed: (event) => closed.push((event as { code?: number }).code) },
  });
}, 60_000);
afterAll(async () => {
  await client?.dispose();
  await gw?.close();
});
beforeEach(() => {
  closed = [];
});

/** Runs one operation; resolves with what the server sent: results, or the error list. */
function run(query: string, waitMs = 3000): Promise<{ results: any[]; errors?: any[] }> {
  return new Promise((resolve) => {
    const results: any[] = [];
    let dispose = () => undefined as void;
    const timer = setTimeout(() => {
      dispose();
      resolve({ results });
    }, waitMs);
    dispose = client.subscribe(
      { query },
      {
        next: (value) => results.push(value),
        error: (errors) => {
          clearTimeout(timer);
          resolve({ results, errors: Array.isArray(errors) ? errors : [errors] });
        },
        complete: () => {
          clearTimeout(timer);
          resolve({ results });
        },
      },
    );
  });
}

/** A subscription whose selection nests `levels` inline fragments: each adds one level of depth. */
function nestedSubscription(levels: number) {
  return `subscription { complianceEvents { ${'... on ComplianceEvent { '.repeat(levels)}id${' }'.repeat(levels)} } }`;
}

test('a subscription nested deeper than the limit is refused with an error naming the depth limit', async () => {
  const refused = await run(nestedSubscription(GRAPHQL_LIMITS.maxDepth + 3));
  expect(refused.results).toEqual([]);
  expect(refused.errors?.length).toBeGreaterThan(0);
  expect(refused.errors![0].message).toMatch(new RegExp(`depth limit of ${GRAPHQL_LIMITS.maxDepth}`, 'i'));
  // the same over HTTP, for comparison: one rule set on both transports
  const overHttp: any = await (await gw.request('/graphql', { method: 'POST', json: { query: nestedSubscription(GRAPHQL_LIMITS.maxDepth + 3) } })).json();
  expect(overHttp.errors[0].message).toMatch(new RegExp(`depth limit of ${GRAPHQL_LIMITS.maxDepth}`, 'i'));
  expect(closed).toEqual([]); // a refused document does not cost the connection
});

test('a subscription within the depth limit is accepted (it stays open, no error)', async () => {
  const accepted = await run(nestedSubscription(GRAPHQL_LIMITS.maxDepth - 3), 1500);
  expect(accepted.errors).toBeUndefined();
});

test('too many aliases over graphql-ws are refused naming the alias limit', async () => {
  const aliases = Array.from({ length: GRAPHQL_LIMITS.maxAliases + 5 }, (_, i) => `a${i}: id`).join(' ');
  const refused = await run(`subscription { complianceEvents { ${aliases} } }`);
  expect(refused.errors?.[0].message).toMatch(new RegExp(`aliases limit of ${GRAPHQL_LIMITS.maxAliases}`, 'i'));
});

test('a document over the token limit and a syntax error answer errors, not a closed socket', async () => {
  const tooManyTokens = await run(`{ requirements(limit: 1) { data { ${'id '.repeat(GRAPHQL_LIMITS.maxTokens)} } } }`);
  expect(tooManyTokens.errors?.[0].message).toMatch(new RegExp(`${GRAPHQL_LIMITS.maxTokens} tokens`));
  const syntax = await run('subscription { complianceEvents { id ');
  expect(syntax.errors?.[0].message).toMatch(/Syntax Error/);
  const unknownField = await run('subscription { complianceEvents { noSuchField } }');
  expect(unknownField.errors?.[0].message).toMatch(/noSuchField/);
  // the connection still answers ordinary operations
  const ok = await run('{ requirements(limit: 1) { pagination { limit } } }');
  expect(ok.errors).toBeUndefined();
  expect(ok.results).toEqual([{ data: { requirements: { pagination: { limit: 1 } } } }]);
  expect(closed).toEqual([]);
});
