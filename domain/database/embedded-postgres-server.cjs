'use strict';
/**
 * Hosts the embedded database (PGlite: PostgreSQL compiled to WASM) in a process of its own and
 * serves it over the PostgreSQL wire protocol on a loopback port (pglite-socket), so the gateway
 * talks to it with the ordinary `pg` driver and the same migrations as a real server. A process of
 * its own keeps the database's CPU work and memory off the gateway's event loop and heap.
 *
 * Started by domain/database/embedded.ts with an IPC channel: it answers {type: 'ready', port},
 * stops on the message 'stop', and also stops when the gateway goes away (IPC disconnect), so it
 * never outlives the gateway, even one killed with SIGKILL.
 */
const fs = require('node:fs');
const { PGlite } = require('@electric-sql/pglite');
const { PGLiteSocketServer } = require('@electric-sql/pglite-socket');

const dir = process.argv[2];
const maxConnections = Number(process.argv[3] || 64);

async function main() {
  fs.mkdirSync(dir, { recursive: true });
  const db = await PGlite.create({ dataDir: dir });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.stop().catch(() => undefined);
    await db.close().catch(() => undefined);
    process.exit(0);
  };
  process.on('message', (m) => {
    if (m === 'stop') void stop();
  });
  process.on('disconnect', () => void stop());
  process.on('SIGTERM', () => void stop());
  // Ctrl-C reaches the whole process group: the gateway decides when the database stops.
  process.on('SIGINT', () => undefined);
  process.send({ type: 'ready', port });
}

main().catch((err) => {
  if (process.send) process.send({ type: 'error', message: String((err && err.message) || err) });
  process.exit(1);
});
