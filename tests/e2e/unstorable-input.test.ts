import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../../gateway/logger';
import { startGateway, type TestGateway } from '../helpers/gateway';

/**
 * Strings that are not well-formed Unicode (a lone surrogate such as "\ud800") are refused with 400
 * VALIDATION_ERROR on every transport and field before any work is done: no 500, no audio file written
 * for a record that is not stored, and no SQL in the log.
 */
let gw: TestGateway;
const logLines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(chunk.toString());
    done();
  },
});

beforeAll(async () => {
  gw = await startGateway({}, { logger: createLogger('info', sink) });
}, 60_000);
afterAll(async () => {
  await gw?.close();
});

const LONE = '\ud800';
const audioFiles = () => {
  const root = path.join(gw.dataDir, 'audio');
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root, { recursive: true })
    .map(String)
    .filter((f) => /[0-9a-f]{64}$/.test(f));
};

async function rest(method: string, pathname: string, json: unknown) {
  const res = await gw.request(pathname, { method, json });
  return { status: res.status, body: (await res.json()) as any };
}
const codeOf = (body: any) => body?.error?.code ?? body?.code;

describe('REST', () => {
  const cases: [string, string, () => unknown][] = [
    ['acceptanceCriteria', '/v1/requirements', () => ({ title: 'A', framework: 'gdpr', acceptanceCriteria: [`criterion ${LONE}`] })],
    ['technicalContext.scope', '/v1/requirements', () => ({ title: 'A', framework: 'gdpr', technicalContext: { scope: `x${LONE}y` } })],
    ['technicalContext.relatedComponents', '/v1/requirements', () => ({ title: 'A', framework: 'gdpr', technicalContext: { relatedComponents: ['\udfff'] } })],
    ['evidence', '/v1/audits/findings', () => ({ title: 'F', framework: 'gdpr', severity: 'low', evidence: [LONE] })],
    ['metadata.tags', '/api/v1/generate', () => ({ text: 'Hello there.', options: { provider: 'mock' }, metadata: { tags: [LONE] } })],
    ['text', '/api/v1/generate', () => ({ text: `Hello ${LONE} there.`, options: { provider: 'mock' } })],
    ['text (progressive)', '/api/v1/generate-progressive', () => ({ text: `Hello ${LONE} there.`, options: { provider: 'mock' } })],
    ['text (estimate)', '/api/v1/estimate', () => ({ text: `Hello ${LONE}` })],
    ['text (hash-info)', '/api/v1/hash-info', () => ({ text: `Hello ${LONE}` })],
  ];
  test.each(cases)('%s with a lone surrogate: 400 VALIDATION_ERROR naming the field', async (field, pathname, body) => {
    const r = await rest('POST', pathname, body());
    expect({ status: r.status, code: codeOf(r.body) }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    expect(JSON.stringify(r.body)).toContain(field.split(' ')[0]);
    expect(JSON.stringify(r.body)).toMatch(/well-formed Unicode/);
  });

  test('a lone surrogate in an object key is refused too', async () => {
    const key = await rest('PUT', '/v1/requirements/00000000-0000-4000-8000-000000000000', { technicalContext: { [LONE]: 'x' } });
    expect(key.status).toBe(400);
  });

  test('twenty refused generations write no audio file, and the log holds no SQL', async () => {
    const before = audioFiles().length;
    for (let i = 0; i < 20; i++) {
      const r = await rest('POST', '/api/v1/generate', {
        text: `Orphan number ${i}.`,
        options: { provider: 'mock' },
        metadata: { tags: [`t${LONE}`], contentId: `c${i}` },
      });
      expect(r.status).toBe(400);
    }
    expect(audioFiles().length).toBe(before);
    const fine = await rest('POST', '/api/v1/generate', { text: 'A stored one.', options: { provider: 'mock' }, metadata: { tags: ['ok'] } });
    expect(fine.status).toBe(200);
    expect(audioFiles().length).toBe(before + 1);
    const text = logLines.join('');
    expect(text).not.toMatch(/insert into|values \(/i);
  });
});

describe('GraphQL', () => {
  const gql = async (query: string, variables: Record<string, unknown>) => {
    const res = await gw.request('/graphql', { method: 'POST', json: { query, variables } });
    return (await res.json()) as any;
  };
  test.each([
    [
      'acceptanceCriteria',
      'mutation($i: CreateRequirementInput!) { createRequirement(input: $i) { id } }',
      { i: { title: 'G', framework: 'GDPR', acceptanceCriteria: [LONE] } },
    ],
    [
      'technicalContext',
      'mutation($i: CreateRequirementInput!) { createRequirement(input: $i) { id } }',
      { i: { title: 'G', framework: 'GDPR', technicalContext: { scope: LONE } } },
    ],
    [
      'evidence',
      'mutation($i: CreateFindingInput!) { createFinding(input: $i) { id } }',
      { i: { title: 'G', framework: 'GDPR', severity: 'LOW', evidence: [LONE] } },
    ],
    [
      'metadata.tags',
      'mutation($i: GenerateInput!) { generate(input: $i) { hash } }',
      { i: { text: 'Hi there.', options: { provider: 'MOCK' }, metadata: { tags: [LONE] } } },
    ],
  ])('%s: VALIDATION_ERROR (status 400), nothing created', async (_field, query, variables) => {
    const body = await gql(query, variables);
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    expect(body.data ?? null).toBeNull();
  });

  test('a lone surrogate written inline in the document is a GraphQL syntax error, not a 500', async () => {
    const res = await gw.request('/graphql', {
      method: 'POST',
      json: { query: `mutation { createRequirement(input: { title: "x${LONE}", framework: GDPR }) { id } }` },
    });
    expect(res.status).toBeLessThan(500);
    const body: any = await res.json();
    expect(body.errors?.length).toBeGreaterThan(0);
    const escaped = await gw.request('/graphql', {
      method: 'POST',
      json: { query: 'mutation { createRequirement(input: { title: "x\\ud800", framework: GDPR }) { id } }' },
    });
    expect(escaped.status).toBeLessThan(500);
    expect(((await escaped.json()) as any).errors?.length).toBeGreaterThan(0);
  });
});

describe('tRPC', () => {
  test.each([
    ['compliance.createRequirement', { title: 'T', framework: 'gdpr', acceptanceCriteria: [LONE] }],
    ['compliance.createRequirement', { title: 'T', framework: 'gdpr', technicalContext: { scope: LONE } }],
    ['compliance.createFinding', { title: 'T', framework: 'gdpr', severity: 'low', evidence: [LONE] }],
    ['tts.generate', { text: 'Hi there.', options: { provider: 'mock' }, metadata: { tags: [LONE] } }],
  ])('%s: 400 VALIDATION_ERROR', async (procedure, input) => {
    const res = await gw.request(`/trpc/${procedure}`, { method: 'POST', json: input });
    const body: any = await res.json();
    expect(res.status).toBe(400);
    expect(body.error.data.domainCode).toBe('VALIDATION_ERROR');
  });

  test('nothing of the refused requests was stored', async () => {
    const list = await rest('GET', '/v1/requirements?limit=200', undefined);
    expect(list.status).toBe(200);
    const all = JSON.stringify(list.body);
    expect(all).not.toMatch(/\\ud800|\\udfff/i);
  });
});
