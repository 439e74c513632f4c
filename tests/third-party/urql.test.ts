import { Client, cacheExchange, fetchExchange, gql } from '@urql/core';
import { ADMIN_KEY, useGateway } from '../helpers/gateway';

/**
 * urql (@urql/core) as its users set it up: the documented exchanges and otherwise its defaults, so
 * queries go as GET (`preferGetMethod: 'within-url-limit'`) with no content type. With the key in
 * `fetchOptions` they are answered; without any preflight header they are refused as a possible CSRF.
 * The fetch given to the client is the real one, only noting how each request went.
 */
const gw = useGateway();

interface Sent {
  method: string;
  url: string;
  headers: Headers;
}

function clientFor(fetchOptions: RequestInit | undefined, sent: Sent[]) {
  return new Client({
    url: `${gw.url}/graphql`,
    exchanges: [cacheExchange, fetchExchange],
    fetchOptions,
    fetch: (input: string | URL | Request, init?: RequestInit) => {
      sent.push({ method: init?.method ?? 'GET', url: String(input), headers: new Headers(init?.headers) });
      return fetch(input, init);
    },
  });
}

const VIEWER = gql`
  query UrqlViewer {
    viewer {
      name
    }
  }
`;

test('a query with the bearer key goes as GET with urql defaults and is answered', async () => {
  const sent: Sent[] = [];
  const client = clientFor({ headers: { authorization: `Bearer ${ADMIN_KEY}` } }, sent);
  const result = await client.query(VIEWER, {}).toPromise();
  expect(result.error).toBeUndefined();
  expect(result.data).toEqual({ viewer: { __typename: 'Viewer', name: 'admin' } });
  expect(sent).toHaveLength(1);
  expect(sent[0].method).toBe('GET');
  expect(sent[0].headers.get('content-type')).toBeNull();
  expect(new URL(sent[0].url).searchParams.get('query')).toContain('UrqlViewer');
});

test('variables travel in the URL, and a mutation goes as POST', async () => {
  const sent: Sent[] = [];
  const client = clientFor({ headers: { authorization: `Bearer ${ADMIN_KEY}` } }, sent);
  const created = await client
    .mutation(
      gql`
        mutation UrqlCreate($input: CreateRequirementInput!) {
          createRequirement(input: $input) {
            id
            title
          }
        }
      `,
      { input: { title: 'Made by urql', framework: 'GDPR', acceptanceCriteria: ['one'] } },
    )
    .toPromise();
  expect(created.error).toBeUndefined();
  const id = created.data.createRequirement.id as string;
  const read = await client
    .query(
      gql`
        query UrqlOne($id: String!) {
          requirement(id: $id) {
            id
            title
          }
        }
      `,
      { id },
    )
    .toPromise();
  expect(read.error).toBeUndefined();
  expect(read.data.requirement).toMatchObject({ id, title: 'Made by urql' });
  expect(sent.map((s) => s.method)).toEqual(['POST', 'GET']);
  expect(JSON.parse(new URL(sent[1].url).searchParams.get('variables')!)).toEqual({ id });
});

test('without the key or a preflight header the GET is refused as a possible CSRF, and urql reports it', async () => {
  const sent: Sent[] = [];
  const client = clientFor(undefined, sent);
  const result = await client.query(VIEWER, {}).toPromise();
  expect(sent[0].method).toBe('GET');
  expect(result.data).toBeUndefined();
  expect(result.error?.graphQLErrors[0]?.message).toMatch(/Cross-Site Request Forgery/);
  expect(result.error?.graphQLErrors[0]?.extensions.code).toBe('BAD_REQUEST');
});
