'use strict';
/**
 * Hosts the embedded database (PGlite: PostgreSQL compiled to WASM) in a process of its own and
 * serves it over the PostgreSQL wire protocol on a loopback port (pglite-socket), so the gateway
 * talks to it with the ordinary `pg` driver and the same migrations as a real server. A process of
 * its own keeps the database's CPU work and memory off the gateway's event loop and heap.
 *
 * Started by domain/database/embedded.ts with an IPC channel: it answers {type: 'ready', port,
 * password}, stops on the message 'stop', and also stops when the gateway goes away (IPC
 * disconnect), so it never outlives the gateway, even one killed with SIGKILL.
 *
 * Access: PGlite accepts any user and password (pglite-socket passes the startup message straight to
 * it, with no authentication step), so the wire protocol server itself listens only on a Unix
 * socket in a fresh directory of mode 0700 (the socket 0600). The loopback port in front of it asks
 * for a password made at random on every start, known only to the gateway (it travels over IPC,
 * never in arguments or the environment), and hands an authenticated connection to that socket.
 * See docs/decisions.md ("The embedded database's credential").
 *
 * Memory and start-up: PostgreSQL's initdb, run inside this process, leaves its WASM heap at ~700 MB
 * for good (WASM memory never shrinks); a process that opens an existing data directory holds
 * ~190 MB. So a fresh data directory is made from a template (a tarball of an initdb'd, empty
 * cluster, made once per PGlite version and kept under node_modules/.cache), and when there is no
 * template yet, initdb runs in a short-lived process of its own that also writes the template.
 * Invoked as `embedded-postgres-server.cjs --init <dataDir>` it is that process; with `--template`
 * it makes the template and exits (run by npm's `prepare`).
 */
const childProcess = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { PGlite } = require('@electric-sql/pglite');
const { PGLiteSocketServer } = require('@electric-sql/pglite-socket');

/** `--migrations=<fingerprint>`: the migrations the gateway runs (migrated-template.ts); any position. */
const MIGRATIONS_FLAG = '--migrations=';
const migrations = process.argv.find((a) => a.startsWith(MIGRATIONS_FLAG))?.slice(MIGRATIONS_FLAG.length);
const argv = process.argv.filter((a) => !a.startsWith(MIGRATIONS_FLAG));
const initOnly = argv[2] === '--init';
/** `--template`: make the template now (npm's `prepare`, so a first start does not wait for initdb). */
const templateOnly = argv[2] === '--template';
/** `--store-migrated <dataDir>`: keep a migrated, cleanly shut-down cluster as the template for `--migrations`. */
const storeMigrated = argv[2] === '--store-migrated';
/** `--has-migrated`: exit 0 when there is a migrated template for `--migrations`, 3 when not. */
const hasMigrated = argv[2] === '--has-migrated';
const dir = initOnly || storeMigrated ? argv[3] : argv[2];
const maxConnections = Number(argv[3] || 64);
/** The socket directory the supervisor keeps across restarts (embedded.ts); a fresh one when absent. */
const givenSocketDir = initOnly || storeMigrated ? undefined : argv[4];

/**
 * PostgreSQL's 128 MB buffer pool is most of an idle embedded database's memory; the data files sit
 * in the operating system's page cache anyway, so a smaller pool costs a copy, not a disk read.
 * For the same reason a page read out of order costs what one in order does: `random_page_cost`
 * 1.1 (PostgreSQL's advice for a database that sits in memory) instead of the spinning disk's 4. With
 * 4 the planner read a framework-filtered list of 100k rows through the (created_at, id) index,
 * fetching and dropping three rows for each one kept, as it judged the (framework, created_at, id)
 * index's heap reads to be random; with 1.1 it takes that index and reads only the page's rows.
 */
const START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB', '-c', 'random_page_cost=1.1'];

/**
 * An initdb'd, never-used cluster holding the `postgres` database alone, made once per PGlite version
 * (node_modules/.cache). The name says the layout, so a template made before it is not reused.
 */
function templateDir() {
  const pgliteRoot = path.resolve(path.dirname(require.resolve('@electric-sql/pglite')), '..');
  const { version } = JSON.parse(fs.readFileSync(path.join(pgliteRoot, 'package.json'), 'utf8'));
  const nodeModules = path.resolve(pgliteRoot, '..', '..');
  return path.join(nodeModules, '.cache', 'speech-gateway', `pglite-${version}-postgres-only`);
}

/**
 * The template with the gateway's migrations already applied, one per set of migrations (its
 * fingerprint, made by migrated-template.ts from the migration files), made by `npm run build`. A
 * fresh data directory copied from it has nothing left to migrate: on a first start the migrations
 * took about a quarter of the time to ready. Absent (an older build, a cache that cannot be written),
 * the plain template is copied and the gateway migrates it, as before.
 */
function migratedTemplateDir(fingerprint) {
  if (!/^[0-9a-f]{16,64}$/.test(fingerprint ?? '')) return undefined;
  return `${templateDir()}-migrated-${fingerprint}`;
}

const isInitialised = (dataDir) => fs.existsSync(path.join(dataDir, 'PG_VERSION'));

/**
 * initdb into `dataDir` and shut down cleanly (a cleanly shut-down cluster may be copied).
 *
 * The template databases are dropped: PGlite serves the `postgres` database alone (one database
 * per process, so a database made from a template could never be opened), and each of them is
 * ~300 of the cluster's ~970 files. Creating a file is what a fresh data directory's copy costs
 * (about 1 ms of system CPU apiece on an ext4 virtual disk), so the copy takes a third of the time.
 */
async function initialise(dataDir) {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create({ dataDir, startParams: START_PARAMS });
  for (const template of ['template1', 'template0']) {
    await db.exec(`alter database ${template} is_template false`);
    await db.exec(`drop database ${template}`);
  }
  await db.close();
}

function initialiseInChild(dataDir) {
  const init = childProcess.spawnSync(process.execPath, [...process.execArgv, __filename, '--init', dataDir], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (init.status !== 0 || !isInitialised(dataDir)) throw new Error(`initdb failed (exit ${init.status ?? init.signal})`);
}

/** Makes the template when there is none; false when the cache cannot be written. */
function ensureTemplate(template) {
  if (isInitialised(template)) return true;
  const partial = `${template}.${process.pid}.partial`;
  try {
    fs.mkdirSync(path.dirname(template), { recursive: true });
    fs.rmSync(partial, { recursive: true, force: true });
    initialiseInChild(partial);
    try {
      fs.renameSync(partial, template);
    } catch {
      // Another process made it meanwhile: theirs is as good as ours.
      fs.rmSync(partial, { recursive: true, force: true });
    }
    return isInitialised(template);
  } catch {
    fs.rmSync(partial, { recursive: true, force: true });
    return false;
  }
}

/** Opens the data directory, making it first when it is new (see the memory note above). */
async function openDataDir(dataDir) {
  fs.mkdirSync(dataDir, { recursive: true });
  if (!isInitialised(dataDir)) {
    const migrated = migratedTemplateDir(migrations);
    const template = templateDir();
    if (migrated && isInitialised(migrated)) fs.cpSync(migrated, dataDir, { recursive: true });
    else if (ensureTemplate(template)) fs.cpSync(template, dataDir, { recursive: true });
    else initialiseInChild(dataDir);
  }
  return PGlite.create({ dataDir, startParams: START_PARAMS });
}

const PROTOCOL_3 = 196608;
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
/** A client that has not authenticated within this is dropped. */
const AUTH_TIMEOUT_MS = 10_000;
const MAX_STARTUP_BYTES = 10_000;

const digest = (s) => crypto.createHash('sha256').update(s).digest();

/** A FATAL ErrorResponse as PostgreSQL sends it, e.g. 28P01 for a wrong password. */
function fatal(code, message) {
  const fields = Buffer.concat([Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0`, 'utf8'), Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([head, fields]);
}

/**
 * The password step of the PostgreSQL protocol in front of PGlite: SSL/GSS requests are declined,
 * the startup message is held, the client is asked for a cleartext password (loopback only) and,
 * when it matches, connected to the Unix socket with its startup message replayed; PGlite's
 * AuthenticationOk and the rest of the session then flow through unchanged.
 */
function authenticatingProxy(socketPath, password, clients) {
  const expected = digest(password);
  return net.createServer((client) => {
    clients.add(client);
    client.once('close', () => clients.delete(client));
    client.setNoDelay(true);
    let buffer = Buffer.alloc(0);
    let startup = null;
    let done = false;
    const timer = setTimeout(() => client.destroy(), AUTH_TIMEOUT_MS);
    const refuse = (code, message) => {
      done = true;
      clearTimeout(timer);
      client.end(fatal(code, message));
    };
    client.on('error', () => undefined);
    client.on('close', () => clearTimeout(timer));
    const onData = (chunk) => {
      if (done) return;
      buffer = Buffer.concat([buffer, chunk]);
      if (buffer.length > MAX_STARTUP_BYTES) return refuse('08P01', 'startup too long');
      for (;;) {
        if (!startup) {
          if (buffer.length < 8) return;
          const length = buffer.readInt32BE(0);
          const code = buffer.readInt32BE(4);
          if (length < 8 || length > MAX_STARTUP_BYTES) return refuse('08P01', 'invalid startup packet length');
          if (buffer.length < length) return;
          const message = buffer.subarray(0, length);
          buffer = buffer.subarray(length);
          if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
            client.write('N');
            continue;
          }
          if (code === CANCEL_REQUEST) {
            done = true;
            clearTimeout(timer);
            return client.end();
          }
          if (code !== PROTOCOL_3) return refuse('08P01', 'unsupported frontend protocol');
          startup = Buffer.from(message);
          // AuthenticationCleartextPassword
          const ask = Buffer.alloc(9);
          ask.write('R', 0);
          ask.writeInt32BE(8, 1);
          ask.writeInt32BE(3, 5);
          client.write(ask);
          continue;
        }
        if (buffer.length < 5) return;
        const type = String.fromCharCode(buffer[0]);
        const length = buffer.readInt32BE(1);
        if (length < 4 || length > MAX_STARTUP_BYTES) return refuse('08P01', 'invalid message length');
        if (buffer.length < 1 + length) return;
        if (type !== 'p') return refuse('28000', 'password authentication required');
        const given = buffer
          .subarray(5, 1 + length)
          .toString('utf8')
          .replace(/\0$/, '');
        const rest = buffer.subarray(1 + length);
        if (!crypto.timingSafeEqual(digest(given), expected)) {
          return refuse('28P01', 'password authentication failed');
        }
        done = true;
        clearTimeout(timer);
        client.off('data', onData);
        client.pause();
        const backend = net.createConnection(socketPath);
        backend.setNoDelay?.(true);
        backend.on('error', () => client.destroy());
        client.on('error', () => backend.destroy());
        client.on('close', () => backend.destroy());
        backend.on('close', () => client.destroy());
        backend.once('connect', () => {
          backend.write(startup);
          if (rest.length) backend.write(rest);
          client.pipe(backend);
          backend.pipe(client);
          client.resume();
        });
        return;
      }
    };
    client.on('data', onData);
  });
}

async function main() {
  const db = await openDataDir(dir);
  // The socket directory is private to this user; files made in it (the socket) are 0600. A
  // restarted database gets the same one (the gateway's pool keeps its address); the previous
  // process's socket, left by a crash, is removed first.
  const socketDir = givenSocketDir || fs.mkdtempSync(path.join(os.tmpdir(), `gw-pglite-${process.pid}-`));
  fs.mkdirSync(socketDir, { recursive: true, mode: 0o700 });
  fs.chmodSync(socketDir, 0o700);
  // libpq's name for a server's socket in a directory, so `?host=<dir>` finds it.
  const socketPath = path.join(socketDir, '.s.PGSQL.5432');
  fs.rmSync(socketPath, { force: true });
  fs.rmSync(`${socketPath}.lock`, { force: true });
  const previousUmask = process.umask(0o177);
  const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections });
  try {
    await server.start();
  } finally {
    process.umask(previousUmask);
  }
  const password = crypto.randomBytes(32).toString('base64url');
  const clients = new Set();
  const front = authenticatingProxy(socketPath, password, clients);
  front.maxConnections = maxConnections;
  await new Promise((resolve, reject) => {
    front.once('error', reject);
    front.listen(0, '127.0.0.1', resolve);
  });
  const port = front.address().port;
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    front.close();
    for (const c of clients) c.destroy();
    await server.stop().catch(() => undefined);
    await db.close().catch(() => undefined);
    if (givenSocketDir) fs.rmSync(socketPath, { force: true });
    else fs.rmSync(socketDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('message', (m) => {
    if (m === 'stop') void stop();
  });
  process.on('disconnect', () => void stop());
  process.on('SIGTERM', () => void stop());
  // Ctrl-C reaches the whole process group: the gateway decides when the database stops.
  process.on('SIGINT', () => undefined);
  process.send({ type: 'ready', port, password, socketDir });
}

/** Copies a cleanly closed cluster into place as the migrated template (a partial copy renamed: never a half-made template). */
function keepMigrated(dataDir) {
  const template = migratedTemplateDir(migrations);
  if (!template) throw new Error('--store-migrated needs --migrations=<fingerprint>');
  if (!isInitialised(dataDir)) throw new Error(`no cluster in ${dataDir}`);
  if (isInitialised(template)) return;
  const partial = `${template}.${process.pid}.partial`;
  try {
    fs.mkdirSync(path.dirname(template), { recursive: true });
    fs.cpSync(dataDir, partial, { recursive: true });
    fs.renameSync(partial, template);
  } finally {
    fs.rmSync(partial, { recursive: true, force: true });
  }
}

if (hasMigrated) {
  const template = migratedTemplateDir(migrations);
  process.exit(template && isInitialised(template) ? 0 : 3);
} else if (storeMigrated) {
  try {
    keepMigrated(dir);
    process.exit(0);
  } catch (err) {
    console.error(String((err && err.message) || err));
    process.exit(1);
  }
} else if (templateOnly) {
  // A cache that cannot be written is no reason to fail an install: the first start then runs initdb.
  ensureTemplate(templateDir());
  process.exit(0);
} else if (initOnly) {
  initialise(dir).then(
    () => process.exit(0),
    (err) => {
      console.error(String((err && err.stack) || err));
      process.exit(1);
    },
  );
} else
  main().catch((err) => {
    if (process.send) process.send({ type: 'error', message: String((err && err.message) || err) });
    process.exit(1);
  });
