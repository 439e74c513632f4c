import { createHash } from 'node:crypto';
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { ADMIN_KEY, useGateway } from '../helpers/gateway';

/**
 * Apollo Client with `useGETForQueries` and its automatic-persisted-queries link (hashes from
 * node:crypto): queries go as GET, first by hash alone, then (on PersistedQueryNotFound) with their
 * text; once registered, any client's hash alone is answered. Mutations stay POST. The fetch given
 * to the link is the real one, only noting how each request went.
 */
const gw = useGateway();

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

interface Sent {
  method: string;
  query: string | null;
  hash: string | undefined;
  contentType: string | null;
}

/** What a request carried: its method, and its text and hash (from the URL or the JSON body). */
function noted(input: string | URL | Request, init: RequestInit | undefined): Sent {
  const method = init?.method ?? 'GET';
  const contentType = new Headers(init?.headers).get('content-type');
  if (method === 'GET') {
    const params = new URL(String(input)).searchParams;
    const extensions = params.get('extensions');
    return { method, query: params.get('query'), hash: extensions ? JSON.parse(extensions).persistedQuery?.sha256Hash : undefined, contentType };
  }
  const body = JSON.parse(String(init?.body));
  return { method, query: body.query ?? null, hash: body.extensions?.persistedQuery?.sha256Hash, contentType };
}

function clientFor(sent: Sent[], opts: { persisted: boolean; key?: string | null }) {
  const http = new HttpLink({
    uri: `${gw.url}/graphql`,
    useGETForQueries: true,
    headers: opts.key === null ? {} : { authorization: `Bearer ${opts.key ?? ADMIN_KEY}` },
    fetch: (input: string | URL | Request, init?: RequestInit) => {
      sent.push(noted(input, init));
      return fetch(input, init);
    },
  });
  const link = opts.persisted ? ApolloLink.from([new PersistedQueryLink({ sha256, useGETForHashedQueries: true }), http]) : http;
  return new ApolloClient({ link, cache: new InMemoryCache() });
}

const VIEWER = gql`
  query ApolloViewer {
    viewer {
      name
    }
  }
`;

test('useGETForQueries: a query with the bearer key goes as GET and is answered', async () => {
  const sent: Sent[] = [];
  const client = clientFor(sent, { persisted: false });
  const { data, error } = await client.query({ query: VIEWER, fetchPolicy: 'network-only' });
  expect(error).toBeUndefined();
  expect(data).toEqual({ viewer: { __typename: 'Viewer', name: 'admin' } });
  expect(sent.map((s) => s.method)).toEqual(['GET']);
});

test('APQ over GET: hash alone, then the text on PersistedQueryNotFound, then the hash alone for any client', async () => {
  // A text no earlier run registered (a shared Redis keeps texts across runs).
  const nonce = `n${Date.now()}${Math.floor(Math.random() * 1e6)}`;
  const query = gql(`query ApolloPersisted { viewer { name } ${nonce}: __typename }`);
  const first: Sent[] = [];
  const client = clientFor(first, { persisted: true });
  const answered = await client.query({ query, fetchPolicy: 'network-only' });
  expect(answered.error).toBeUndefined();
  expect(answered.data).toMatchObject({ viewer: { name: 'admin' }, [nonce]: 'Query' });
  expect(first.map((s) => [s.method, s.query === null])).toEqual([
    ['GET', true],
    ['GET', false],
  ]);
  const hash = first[0].hash!;
  expect(hash).toMatch(/^[0-9a-f]{64}$/);
  expect(hash).toBe(sha256(first[1].query!));

  const again: Sent[] = [];
  const other = clientFor(again, { persisted: true });
  const byHash = await other.query({ query, fetchPolicy: 'network-only' });
  expect(byHash.data).toEqual(answered.data);
  expect(again).toEqual([{ method: 'GET', query: null, hash, contentType: 'application/json' }]);
});

test('mutations go as POST (with APQ too) and are answered', async () => {
  const sent: Sent[] = [];
  const client = clientFor(sent, { persisted: true });
  const { data, error } = await client.mutate<{ createRequirement: { id: string; title: string } }>({
    mutation: gql`
      mutation ApolloCreate($input: CreateRequirementInput!) {
        createRequirement(input: $input) {
          id
          title
        }
      }
    `,
    variables: { input: { title: 'Made by Apollo Client', framework: 'GDPR' } },
  });
  expect(error).toBeUndefined();
  expect(data?.createRequirement.title).toBe('Made by Apollo Client');
  expect(sent.every((s) => s.method === 'POST')).toBe(true);
});

/**
 * Apollo Client 4 sends `content-type: application/json` on its GETs too (a type a plain form cannot
 * send, so the CSRF rule takes them); without a key such a GET reaches the gateway's authentication.
 */
test('its GETs carry content-type: application/json; without a key the query is refused by authentication', async () => {
  const sent: Sent[] = [];
  const client = clientFor(sent, { persisted: false, key: null });
  const { data, error } = await client.query({ query: VIEWER, fetchPolicy: 'network-only', errorPolicy: 'all' });
  expect(sent).toEqual([{ method: 'GET', query: expect.stringContaining('ApolloViewer'), hash: undefined, contentType: 'application/json' }]);
  expect(data ?? null).toBeNull();
  expect(String(error)).toMatch(/Invalid or missing API key/);
});
