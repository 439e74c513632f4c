/**
 * tRPC for clients: the `AppRouter` declaration shipped in the TypeScript client compiles with
 * @trpc/client alone (no server sources, no other node_modules), types inputs and outputs, and a
 * real @trpc/client works against the gateway with it. Subscriptions take the key as
 * `connectionParams` or `?access_token=` too (a browser's EventSource cannot send headers).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import type { AppRouter } from '@speech-gateway/client/trpc';
import { ADMIN_KEY, issueKey, useGateway } from '../helpers/gateway';
import { readSse } from '../helpers/sse';

const REPO = path.resolve(__dirname, '../..');
const DTS = path.join(REPO, 'clients/typescript/trpc/app-router.d.ts');

describe('the AppRouter declaration', () => {
  let dir: string;
  beforeAll(() => {
    // A client project of its own: the declaration, and node_modules holding only @trpc.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trpc-consumer-'));
    fs.copyFileSync(DTS, path.join(dir, 'app-router.d.ts'));
    fs.mkdirSync(path.join(dir, 'node_modules'));
    fs.symlinkSync(path.join(REPO, 'node_modules/@trpc'), path.join(dir, 'node_modules/@trpc'), 'dir');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  function compile(source: string) {
    const file = path.join(dir, 'consumer.ts');
    fs.writeFileSync(file, source);
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.Node16,
      moduleResolution: ts.ModuleResolutionKind.Node16,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.esnext.disposable.d.ts'], // @trpc/server's types use Disposable
      types: [],
      skipLibCheck: false,
      preserveSymlinks: true,
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    const files = program.getSourceFiles().map((f) => f.fileName);
    return { diagnostics, files };
  }

  const consumer = (extra = '') => `
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from './app-router';

const client = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: 'http://localhost:3000/trpc' })] });
type Outputs = inferRouterOutputs<AppRouter>;
export async function use() {
  const generated = await client.tts.generate.mutate({ text: 'Hello', options: { provider: 'mock' } });
  const hash: string = generated.hash;
  const created = await client.compliance.createRequirement.mutate({ title: 'A', framework: 'gdpr' });
  const status: string = created.status;
  const page: Outputs['compliance']['requirements'] = await client.compliance.requirements.query({ framework: 'gdpr' });
  const at: string = generated.metadata.generatedAt;
  return [hash, status, page.data.length, at];
}
${extra}
`;

  it('compiles with @trpc/client alone and loads nothing of the server', () => {
    const { diagnostics, files } = compile(consumer());
    expect(diagnostics).toEqual([]);
    const outside = files.filter(
      (f) => !f.startsWith(dir) && !/[\\/]typescript[\\/]lib[\\/]lib\./.test(f) && !f.includes(`${path.sep}node_modules${path.sep}@trpc${path.sep}`),
    );
    expect(outside).toEqual([]);
    expect(files.some((f) => f.startsWith(REPO) && !f.includes('node_modules'))).toBe(false);
    expect(fs.readFileSync(DTS, 'utf8')).not.toMatch(/from '\.\.?\/|import\("\.|@mikro-orm|type-graphql|reflect-metadata/);
  });

  it('types inputs, outputs and procedure names', () => {
    const { diagnostics } = compile(
      consumer(`
export async function wrong() {
  await client.tts.generate.mutate({ text: 42 });
  const n: number = (await client.tts.generate.mutate({ text: 'x' })).hash;
  await client.tts.noSuchProcedure.query();
  return n;
}`),
    );
    expect(diagnostics).toHaveLength(3);
    expect(diagnostics[0]).toMatch(/Type 'number' is not assignable to type 'string'/);
    expect(diagnostics[1]).toMatch(/Type 'string' is not assignable to type 'number'/);
    expect(diagnostics[2]).toMatch(/noSuchProcedure/);
  });
});

describe('tRPC against the gateway', () => {
  const gw = useGateway();

  it('a @trpc/client typed by the shipped AppRouter calls the gateway', async () => {
    const client = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${gw.url}/trpc`, headers: { authorization: `Bearer ${ADMIN_KEY}` } })] });
    const created = await client.compliance.createRequirement.mutate({ title: 'Through tRPC', framework: 'soc2' });
    expect(created).toMatchObject({ title: 'Through tRPC', status: 'pending' });
    const generated = await client.tts.generate.mutate({ text: 'Hello over tRPC.', options: { provider: 'mock' } });
    expect(generated.audioUrl).toBe(`/api/v1/audio/${generated.hash}`);
    const err = await client.compliance.requirement.query({ id: 'nope' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TRPCClientError);
    expect((err as TRPCClientError<AppRouter>).data?.domainCode).toBe('NOT_FOUND');
  });

  async function subscribe(query: string, headers: Record<string, string> = {}) {
    const input = encodeURIComponent(JSON.stringify({ types: ['requirement.created'] }));
    const controller = new AbortController();
    const res = await fetch(`${gw.url}/trpc/live.complianceEvents?input=${input}${query}`, { headers, signal: controller.signal });
    expect(res.status).toBe(200);
    const title = `tRPC live ${Math.random()}`;
    const timer = setInterval(() => void gw.request('/v1/requirements', { method: 'POST', json: { title, framework: 'gdpr' } }), 300);
    try {
      const events = await readSse(res, { until: (e) => e?.data?.title === title || e?.data?.domainCode !== undefined });
      return { last: events[events.length - 1], title };
    } finally {
      clearInterval(timer);
      controller.abort();
    }
  }

  it('subscriptions take the key from connectionParams (httpSubscriptionLink) or access_token', async () => {
    const key = await issueKey(gw, ['read:dashboard', 'read:requirements']);
    const viaParams = await subscribe(`&connectionParams=${encodeURIComponent(JSON.stringify({ authorization: `Bearer ${key}` }))}`);
    expect(viaParams.last).toMatchObject({ type: 'requirement.created', wsType: 'requirement_updated', data: { title: viaParams.title } });
    const bare = await subscribe(`&connectionParams=${encodeURIComponent(JSON.stringify({ authorization: key }))}`);
    expect(bare.last.data.title).toBe(bare.title);
    const viaQuery = await subscribe(`&access_token=${encodeURIComponent(key)}`);
    expect(viaQuery.last.data.title).toBe(viaQuery.title);
    const viaHeader = await subscribe('', { authorization: `Bearer ${key}` });
    expect(viaHeader.last.data.title).toBe(viaHeader.title);
  });

  it('a missing, wrong or insufficient key in them is refused with the code', async () => {
    expect((await subscribe('')).last.data).toMatchObject({ domainCode: 'AUTHENTICATION_ERROR' });
    expect((await subscribe('&access_token=sk_wrong')).last.data).toMatchObject({ domainCode: 'AUTHENTICATION_ERROR' });
    const weak = await issueKey(gw, ['read:requirements']);
    expect((await subscribe(`&connectionParams=${encodeURIComponent(JSON.stringify({ authorization: `Bearer ${weak}` }))}`)).last.data).toMatchObject({
      domainCode: 'AUTHORIZATION_ERROR',
    });
    // Queries and mutations keep to the Authorization header: a key in the URL is not read there.
    const res = await fetch(`${gw.url}/trpc/live.dashboardStatus?access_token=${ADMIN_KEY}`);
    expect(res.status).toBe(401);
  });
});
