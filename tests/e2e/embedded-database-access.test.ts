import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../domain/database/embedded';
import { ADMIN_KEY, startGateway, type TestGateway } from '../helpers/gateway';

/**
 * The embedded database is reachable only with the password made for this start: the old fixed
 * `postgres` password (or none) is refused on its loopback port. The gateway itself connects over
 * the private Unix socket behind that port (this user only).
 */
let dir: string;
let db: EmbeddedPostgres;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-embedded-access-'));
  db = await startEmbeddedPostgres(dir);
}, 120_000);
afterAll(async () => {
  await db?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function connectAs(url: string): Promise<{ ok: true; value: unknown } | { ok: false; code?: string; message: string }> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    const r = await client.query('select 41 + 1 as v');
    return { ok: true, value: r.rows[0].v };
  } catch (err: any) {
    return { ok: false, code: err.code, message: String(err.message) };
  } finally {
    await client.end().catch(() => undefined);
  }
}

test('listens on loopback with a random password; the old fixed password, a wrong one and none are refused', async () => {
  const url = new URL(db.url);
  expect(url.hostname).toBe('127.0.0.1');
  expect(url.password).not.toBe('postgres');
  expect(decodeURIComponent(url.password).length).toBeGreaterThanOrEqual(32);

  expect(await connectAs(db.url)).toEqual({ ok: true, value: 42 });

  for (const password of ['postgres', '', decodeURIComponent(url.password).slice(0, -1) + 'x']) {
    const attempt = new URL(db.url);
    attempt.password = password;
    expect(await connectAs(attempt.toString())).toMatchObject({ ok: false });
  }
  const wrong = new URL(db.url);
  wrong.password = 'postgres';
  expect(await connectAs(wrong.toString())).toMatchObject({ ok: false, code: '28P01' });

  // The refusals did not disturb the database: the right password still works.
  expect(await connectAs(db.url)).toEqual({ ok: true, value: 42 });
});

test('a second start makes a different password; the first one no longer opens anything', async () => {
  const dir2 = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-embedded-access2-'));
  const second = await startEmbeddedPostgres(dir2);
  try {
    const first = new URL(db.url);
    const other = new URL(second.url);
    expect(other.password).not.toBe(first.password);
    other.password = first.password;
    expect(await connectAs(other.toString())).toMatchObject({ ok: false, code: '28P01' });
    expect(await connectAs(second.url)).toEqual({ ok: true, value: 42 });
  } finally {
    await second.stop();
    fs.rmSync(dir2, { recursive: true, force: true });
  }
}, 120_000);

test('a fresh data directory holds the postgres database alone, copied from a template without the template databases', async () => {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  try {
    const { rows } = await client.query('select datname from pg_database order by datname');
    expect(rows.map((r) => r.datname)).toEqual(['postgres']);
  } finally {
    await client.end();
  }
  // Each database is ~300 files, and creating files is what a fresh directory's copy costs.
  expect(fs.readdirSync(path.join(dir, 'base'))).toHaveLength(1);
});

describe('a gateway on its embedded database', () => {
  let gw: TestGateway | undefined;
  afterAll(async () => {
    await gw?.close();
  });

  test('works, while its database refuses the fixed password on every loopback port the database process listens on', async () => {
    gw = await startGateway({ DATABASE_URL: '' }); // embedded, even when the suite runs on PostgreSQL
    const created = await gw.request('/v1/requirements', {
      method: 'POST',
      auth: ADMIN_KEY,
      json: { title: 'Embedded database access check', framework: 'soc2' },
    });
    expect(created.status).toBe(201);
    const ports = listeningPortsOfChildren(process.pid);
    expect(ports.length).toBeGreaterThan(0);
    for (const port of ports) {
      const attempt = await connectAs(`postgresql://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=disable`);
      expect({ port, ok: attempt.ok }).toEqual({ port, ok: false });
    }
    expect((await gw.request('/v1/requirements?limit=1', { auth: ADMIN_KEY })).status).toBe(200);
  }, 120_000);
});

/** TCP ports in LISTEN state owned by direct children of `pid` (the embedded database's process). */
function listeningPortsOfChildren(pid: number): number[] {
  const children = fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return fs.readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1] === String(pid);
      } catch {
        return false;
      }
    });
  const ports: number[] = [];
  for (const child of children) {
    const inodes = new Set<string>();
    for (const fd of safe(() => fs.readdirSync(`/proc/${child}/fd`), [] as string[])) {
      const link = safe(() => fs.readlinkSync(`/proc/${child}/fd/${fd}`), '');
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m) inodes.add(m[1]);
    }
    for (const table of ['tcp', 'tcp6']) {
      for (const line of safe(() => fs.readFileSync(`/proc/${child}/net/${table}`, 'utf8'), '')
        .split('\n')
        .slice(1)) {
        const cols = line.trim().split(/\s+/);
        if (cols.length < 10 || cols[3] !== '0A' || !inodes.has(cols[9])) continue; // 0A: LISTEN
        const [addr, port] = cols[1].split(':');
        expect(addr).toBe(table === 'tcp' ? '0100007F' : '00000000000000000000000001000000'); // loopback only
        ports.push(parseInt(port, 16));
      }
    }
  }
  return ports;
}

function safe<T>(f: () => T, fallback: T): T {
  try {
    return f();
  } catch {
    return fallback;
  }
}
