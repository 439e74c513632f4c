/**
 * Work counted, not timed: CPU instructions per cache-hit `POST /api/v1/generate`, the gateway
 * against bare node:http answering the same bytes, each server under valgrind's callgrind.
 *
 * Timed ratios on this 2-core machine move ±20 % from one 4-second round to the next; an instruction
 * count does not move with the hour, so a change of 1 % is seen in one run. It is not a budget: it
 * leaves out what the machine adds (caches, the kernel, the load generator beside the server), which
 * the timed bench keeps. Use it to decide whether a change to the hit path does less work. Only the
 * gateway's own process is counted, not the embedded database it starts: a hit makes no query, and
 * the database's background work is not the request's.
 *
 *   npm run build && node dist/bench/instructions.js     # needs valgrind (Debian package valgrind)
 *
 * The gateway is counted twice: having served nothing but generations, and again after one request of
 * each other kind a user's gateway serves (the console page and its assets, a generation miss, GraphQL,
 * tRPC and REST reads, a 404, the metrics). Node's HTTP and stream code is shared by every request, and
 * an object of a new hidden class in any of them slows it for all (gateway/front/object-shapes.ts);
 * the second figure is the one a gateway in use gets.
 *
 * INSTR_REQUESTS (5000) counted per run, INSTR_WARMUP (30000) before the first run, INSTR_RUNS (4).
 * Each side's figure is its smallest run: V8 compiles, collects and sometimes runs a slower path in
 * between (seen under valgrind: node's `nextTick` object literal falling back to the runtime, ~20k
 * instructions a request), and none of that is the request's own work.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { answerHead } from './lib/answer-head';
import { benchGatewayEnv } from './lib/gateway-env';

const REQUESTS = Number(process.env.INSTR_REQUESTS ?? 5000);
const WARMUP = Number(process.env.INSTR_WARMUP ?? 30000);
const RUNS = Math.max(1, Number(process.env.INSTR_RUNS ?? 4));
const DIST = path.resolve(__dirname, '..');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-instructions-'));
// valgrind names its control pipes after $HOST; callgrind_control must be given the same.
const HOST = '127.0.0.1';

interface Server {
  name: string;
  proc: ChildProcess;
  url: string;
  outPrefix: string;
}

function underCallgrind(name: string, script: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<Server> {
  const outPrefix = path.join(root, `${name}.out`);
  const proc = spawn(
    'valgrind',
    ['--tool=callgrind', '--smc-check=all-non-file', '--instr-atstart=no', `--callgrind-out-file=${outPrefix}`, process.execPath, script],
    { env: { ...env, HOST }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not start under valgrind in 300 s:\n${seen.slice(-2000)}`)), 300_000);
    const look = (chunk: Buffer) => {
      seen += chunk.toString();
      const m = ready.exec(seen);
      if (!m) return;
      clearTimeout(timer);
      resolve({ name, proc, url: m[1], outPrefix });
    };
    proc.stdout!.on('data', look);
    proc.stderr!.on('data', look);
    proc.once('exit', (code) => reject(new Error(`${name} exited (${code}):\n${seen.slice(-2000)}`)));
  });
}

const control = (s: Server, ...args: string[]) => {
  const r = spawnSync('callgrind_control', [...args, String(s.proc.pid)], { env: { ...process.env, HOST }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`callgrind_control ${args.join(' ')} failed: ${r.stderr}`);
};

/** `amount` requests from the bench's load generator, in a process of its own (bench/lib/cannon.ts), as every bench case drives load. */
async function fire(url: string, body: string, amount: number) {
  const opts = { url, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections: 10, amount };
  const out = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, [path.join(DIST, 'bench/lib/cannon.js'), JSON.stringify(opts)], (err, stdout) => (err ? reject(err) : resolve(stdout))),
  );
  const r = JSON.parse(out) as { non2xx: number; errors: number };
  if (r.non2xx || r.errors) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
}

/** Instructions per request over `REQUESTS` requests, counted from a dump of this run alone. */
async function countRun(s: Server, body: string): Promise<number> {
  const before = new Set(fs.readdirSync(root));
  control(s, '-z');
  control(s, '-i', 'on');
  await fire(`${s.url}/api/v1/generate`, body, REQUESTS);
  control(s, '-i', 'off');
  control(s, '-d');
  for (let i = 0; i < 60; i++) {
    const dump = fs.readdirSync(root).find((f) => f.startsWith(path.basename(s.outPrefix)) && !before.has(f));
    const text = dump && fs.readFileSync(path.join(root, dump), 'utf8');
    const totals = text && /^totals: (\d+)/m.exec(text);
    if (totals) return Number(totals[1]) / REQUESTS;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${s.name}: no callgrind dump`);
}

/** One request of each kind other than a cache-hit generation, a few times over (bench/instructions.ts header). */
async function otherTraffic(url: string, adminKey: string) {
  const auth = { authorization: `Bearer ${adminKey}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const call = (path: string, init: RequestInit = {}) => fetch(url + path, init).then((r) => r.arrayBuffer());
  const page = await fetch(`${url}/`).then((r) => r.text());
  const assets = [...page.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
  for (let i = 0; i < 5; i++) {
    for (const asset of ['/', ...assets]) await call(asset);
    await call('/api/v1/generate', { method: 'POST', headers: json, body: JSON.stringify({ text: `Another text ${i}.`, options: { provider: 'mock' } }) });
    await call('/v1/requirements', { method: 'POST', headers: json, body: JSON.stringify({ title: `Requirement ${i}`, framework: 'gdpr', priority: 'high' }) });
    await call('/graphql', { method: 'POST', headers: json, body: JSON.stringify({ query: `{ requirements(limit: ${i + 1}) { data { id title } } }` }) });
    await call(`/trpc/compliance.requirements?input=${encodeURIComponent(JSON.stringify({ limit: i + 1 }))}`, { headers: auth });
    await call(`/v1/requirements?limit=${i + 1}`, { headers: auth });
    await call('/no-such-path');
    await call('/metrics');
  }
}

async function measure(s: Server, body: string): Promise<number[]> {
  await fire(`${s.url}/api/v1/generate`, body, WARMUP);
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await countRun(s, body));
  return runs;
}

async function main() {
  if (spawnSync('valgrind', ['--version']).status !== 0) throw new Error('valgrind is not installed (Debian: apt-get install valgrind)');
  const servers: Server[] = [];
  try {
    const adminKey = `bench-admin-${randomBytes(12).toString('hex')}`;
    const gateway = await underCallgrind(
      'gateway',
      path.join(DIST, 'gateway/main.js'),
      benchGatewayEnv(path.join(root, 'data'), adminKey),
      /Gateway ready at (http:\/\/\S+?) /,
    );
    servers.push(gateway);
    // The body the bench's generate case settles on (bench/run.ts sizes its text to ~50 KB of mp3: 14 words).
    const text = Array.from({ length: 14 }, (_, i) => `word${i}`).join(' ') + '. Bench 1.';
    const body = JSON.stringify({ text, options: { provider: 'mock', format: 'mp3' } });
    const post = () => fetch(`${gateway.url}/api/v1/generate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await (await post()).arrayBuffer();
    const hit = await post();
    const bytes = Buffer.from(await hit.arrayBuffer());
    if (JSON.parse(bytes.toString()).cached !== true) throw new Error('the repeated generate was not a cache hit');
    const file = path.join(root, 'answer.json');
    fs.writeFileSync(file, bytes);
    const bare = await underCallgrind(
      'bare',
      path.join(DIST, 'bench/baseline/bare-http.js'),
      { ...process.env, BASELINE_FILE: file, BASELINE_HEADERS: JSON.stringify(answerHead(hit)) },
      /LISTENING (http:\/\/\S+)/,
    );
    servers.push(bare);
    const g = await measure(gateway, body);
    await otherTraffic(gateway.url, adminKey);
    const used = await measure(gateway, body);
    const b = await measure(bare, body);
    const min = (xs: number[]) => Math.min(...xs);
    const fmt = (xs: number[]) => xs.map((x) => Math.round(x).toLocaleString('en')).join(' / ');
    process.stdout.write(
      `Instructions per cache-hit POST /api/v1/generate (callgrind, ${REQUESTS} requests a run, smallest of ${RUNS}):\n` +
        `  gateway, generations only:        ${Math.round(min(g)).toLocaleString('en')} (runs ${fmt(g)})\n` +
        `  gateway, after other kinds too:   ${Math.round(min(used)).toLocaleString('en')} (runs ${fmt(used)})\n` +
        `  bare node:http:                   ${Math.round(min(b)).toLocaleString('en')} (runs ${fmt(b)})\n` +
        `  ratio: ${(min(g) / min(b)).toFixed(3)}x; after other kinds ${(min(used) / min(b)).toFixed(3)}x\n`,
    );
  } finally {
    for (const s of servers) s.proc.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 2000));
    for (const s of servers) s.proc.kill('SIGKILL');
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(2);
});
