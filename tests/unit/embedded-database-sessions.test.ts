import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../domain/database/embedded';

/**
 * The embedded database's wire protocol (pglite-socket in front of PGlite, one session for every
 * connection): each open transaction is isolated from the other connections, a connection that goes
 * away is rolled back, and the protocol's framing (several queries in one write, a query split over
 * many, SSL declined, a connection limit) is answered as PostgreSQL answers it. The gateway's
 * isolation on the embedded database rests on this; a pglite-socket upgrade must keep it.
 */
let dir: string;
let db: EmbeddedPostgres;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-embedded-wire-'));
  db = await startEmbeddedPostgres(dir, { maxConnections: 8 });
  const c = await connect();
  await c.query('create table wire_t (id int primary key, note text)');
  await c.end();
}, 120_000);
afterAll(async () => {
  await db?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function connect(): Promise<Client> {
  const client = new Client({ host: db.socketDir, user: 'postgres', database: 'postgres' });
  await client.connect();
  return client;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("another connection's statements wait while a transaction is open, and never see its uncommitted rows", async () => {
  const a = await connect();
  const b = await connect();
  try {
    await a.query('begin');
    await a.query("insert into wire_t values (1, 'from a')");
    let bSaw: number | undefined;
    const bRead = b.query('select count(*)::int as n from wire_t').then((r) => (bSaw = r.rows[0].n));
    await pause(100);
    expect(bSaw).toBeUndefined(); // waits for a's transaction
    await a.query("insert into wire_t values (2, 'from a')");
    await a.query('rollback');
    await bRead;
    expect(bSaw).toBe(0);
  } finally {
    await a.end();
    await b.end();
  }
});

test('a connection that goes away inside a transaction is rolled back, and the others go on', async () => {
  const a = await connect();
  const b = await connect();
  try {
    await a.query('begin');
    await a.query("insert into wire_t values (10, 'left behind')");
    const bRead = b.query('select count(*)::int as n from wire_t where id = 10');
    // Dropped without a word (no Terminate), as a killed client would be.
    a.on('error', () => undefined);
    (a as any).connection.stream.destroy();
    const r = await bRead;
    expect(r.rows[0].n).toBe(0);
    const again = await b.query('select count(*)::int as n from wire_t where id = 10');
    expect(again.rows[0].n).toBe(0);
  } finally {
    await a.end().catch(() => undefined);
    await b.end();
  }
});

test('an error inside a transaction leaves it to its connection to roll back; committed work is kept', async () => {
  const a = await connect();
  const b = await connect();
  try {
    await a.query('begin');
    await a.query("insert into wire_t values (20, 'kept')");
    await a.query('commit');
    await a.query('begin');
    await expect(a.query("insert into wire_t values (20, 'duplicate')")).rejects.toMatchObject({ code: '23505' });
    await expect(a.query('select 1')).rejects.toMatchObject({ code: '25P02' }); // in a failed transaction
    await a.query('rollback');
    const r = await b.query('select note from wire_t where id = 20');
    expect(r.rows).toEqual([{ note: 'kept' }]);
  } finally {
    await a.end();
    await b.end();
  }
});

test('concurrent transactions from many connections each commit whole', async () => {
  const clients = await Promise.all(Array.from({ length: 6 }, () => connect()));
  try {
    await Promise.all(
      clients.map(async (c, i) => {
        for (let k = 0; k < 5; k++) {
          await c.query('begin');
          const id = 1000 + i * 100 + k;
          await c.query('insert into wire_t values ($1, $2)', [id, 'first']);
          await pause(1);
          await c.query('update wire_t set note = $2 where id = $1', [id, 'second']);
          await c.query('commit');
        }
      }),
    );
    const r = await clients[0].query("select count(*)::int as n, count(*) filter (where note = 'second')::int as done from wire_t where id >= 1000");
    expect(r.rows[0]).toEqual({ n: 30, done: 30 });
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
});

/** A raw client: the startup packet, then whatever bytes the test sends, collecting every answer. */
async function rawSession(): Promise<{ send(b: Buffer): void; until(pred: (all: Buffer) => boolean): Promise<Buffer>; close(): void }> {
  const socket = net.createConnection(path.join(db.socketDir, '.s.PGSQL.5432'));
  let all = Buffer.alloc(0);
  const waiters: (() => void)[] = [];
  socket.on('data', (d) => {
    all = Buffer.concat([all, d]);
    waiters.splice(0).forEach((w) => w());
  });
  await new Promise<void>((r) => socket.once('connect', () => r()));
  const until = (pred: (all: Buffer) => boolean) =>
    new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer; got ${all.toString('latin1')}`)), 10_000);
      const check = () => {
        if (pred(all)) {
          clearTimeout(timer);
          const got = all;
          all = Buffer.alloc(0);
          resolve(got);
        } else waiters.push(check);
      };
      check();
    });
  return { send: (b) => socket.write(b), until, close: () => socket.destroy() };
}

const startup = () => {
  const params = Buffer.from('user\0postgres\0database\0postgres\0\0');
  const b = Buffer.alloc(8 + params.length);
  b.writeInt32BE(b.length, 0);
  b.writeInt32BE(196608, 4);
  params.copy(b, 8);
  return b;
};
const simpleQuery = (sql: string) => {
  const text = Buffer.from(sql + '\0');
  const b = Buffer.alloc(5 + text.length);
  b.write('Q', 0);
  b.writeInt32BE(4 + text.length, 1);
  text.copy(b, 5);
  return b;
};
/** How many ReadyForQuery ('Z') messages a run of backend messages holds. */
function readyCount(all: Buffer): number {
  let n = 0;
  for (let at = 0; at + 5 <= all.length;) {
    const length = all.readInt32BE(at + 1);
    if (at + 1 + length > all.length) break;
    if (all[at] === 0x5a) n++;
    at += 1 + length;
  }
  return n;
}

test('SSL is declined, and queries sent together or byte by byte are each answered in order', async () => {
  const s = await rawSession();
  try {
    const ssl = Buffer.alloc(8);
    ssl.writeInt32BE(8, 0);
    ssl.writeInt32BE(80877103, 4);
    s.send(ssl);
    expect((await s.until((all) => all.length >= 1)).toString()).toBe('N');
    s.send(startup());
    await s.until((all) => readyCount(all) >= 1);

    s.send(Buffer.concat([simpleQuery("select 'one'"), simpleQuery("select 'two'")]));
    const both = await s.until((all) => readyCount(all) >= 2);
    const text = both.toString('latin1');
    expect(text.indexOf('one')).toBeGreaterThan(0);
    expect(text.indexOf('two')).toBeGreaterThan(text.indexOf('one'));

    const split = simpleQuery("select 'three'");
    for (const byte of split) {
      s.send(Buffer.from([byte]));
      await pause(1);
    }
    expect((await s.until((all) => readyCount(all) >= 1)).toString('latin1')).toContain('three');
  } finally {
    s.close();
  }
});

test('a connection beyond the limit is refused; the others are unaffected', async () => {
  const held = await Promise.all(Array.from({ length: 8 }, () => connect()));
  try {
    await expect(connect()).rejects.toThrow();
    const r = await held[0].query('select 42 as v');
    expect(r.rows[0].v).toBe(42);
  } finally {
    await Promise.all(held.map((c) => c.end()));
  }
  const c = await connect();
  expect((await c.query('select 1 as v')).rows[0].v).toBe(1);
  await c.end();
});
