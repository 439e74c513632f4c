import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface EmbeddedPostgres {
  /** Loopback, with the password made for this start (the database accepts no other). */
  url: string;
  /**
   * The private Unix socket (its directory is 0700, the socket 0600: this user only). The gateway
   * connects here: the loopback front costs the single-threaded database process a relay of every
   * message (0.1–0.3 ms of its CPU per statement, measured).
   */
  socketDir: string;
  pid: number;
  stop(): Promise<void>;
  /** Called once if the process exits without being told to stop (a crash, a kill). */
  onUnexpectedExit?: (code: number | null, signal: NodeJS.Signals | null) => void;
}

/** Where the embedded database keeps its files under `DATA_DIR`. */
export const embeddedDataDir = (dataDir: string) => path.join(dataDir, 'pgdata');

/** The repository root (where package.json is), from the sources or from the compiled `dist/`. */
function packageRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above ' + __dirname);
    dir = parent;
  }
  return dir;
}

/** The embedded database's process script (it stays a .cjs file beside the sources: the build does not copy it). */
export const embeddedServerScript = () => path.join(packageRoot(), 'domain', 'database', 'embedded-postgres-server.cjs');

/** The argument that names the migrated template to the embedded database's process. */
export const migrationsArgument = (fingerprint: string) => `--migrations=${fingerprint}`;

/**
 * Starts the embedded PGlite database in its own process (embedded-postgres-server.cjs) and
 * resolves with a connection URL once it listens on a loopback port. The URL carries a password made
 * at random for this start; it reaches us over IPC, never through arguments or the environment.
 * `migrations` (a fingerprint, migrated-template.ts) lets a new data directory start as a copy of
 * the template those migrations made, when there is one.
 */
export function startEmbeddedPostgres(
  dataDir: string,
  opts: { maxConnections?: number; startTimeoutMs?: number; socketDir?: string; migrations?: string | null } = {},
): Promise<EmbeddedPostgres> {
  const script = embeddedServerScript();
  // No inherited flags (a profiler's, a test runner's). PGlite's WASM runs on V8's baseline compiler
  // only: tiering its ~10 MB of code up to TurboFan cost more CPU at start (and ~50 MB of memory)
  // than the optimised code saved later (docs/decisions.md).
  const args = [dataDir, String(opts.maxConnections ?? 64), ...(opts.socketDir ? [opts.socketDir] : [])];
  if (opts.migrations) args.push(migrationsArgument(opts.migrations));
  const child: ChildProcess = fork(script, args, { execArgv: ['--liftoff-only'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`The embedded database did not start within ${opts.startTimeoutMs ?? 120_000} ms`));
    }, opts.startTimeoutMs ?? 120_000);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`The embedded database exited while starting (code ${code})`));
    };
    child.once('exit', onExit);
    child.on('message', (m: { type?: string; message?: string; port?: number; password?: string; socketDir?: string } | undefined) => {
      if (m?.type === 'error') {
        clearTimeout(timer);
        child.off('exit', onExit);
        child.kill('SIGKILL');
        reject(new Error(`The embedded database failed to start: ${m.message}`));
      }
      if (m?.type !== 'ready') return;
      clearTimeout(timer);
      child.off('exit', onExit);
      let stopped: Promise<void> | null = null;
      child.once('exit', (code, signal) => {
        if (!stopped) handle.onUnexpectedExit?.(code, signal);
      });
      const handle: EmbeddedPostgres = {
        url: `postgresql://postgres:${encodeURIComponent(String(m.password))}@127.0.0.1:${m.port}/postgres?sslmode=disable`,
        socketDir: String(m.socketDir),
        pid: child.pid!,
        stop: () =>
          (stopped ??= new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
            child.once('exit', () => {
              clearTimeout(force);
              done();
            });
            if (child.connected) child.send('stop');
            else child.kill('SIGTERM');
          })),
      };
      resolve(handle);
    });
  });
}
