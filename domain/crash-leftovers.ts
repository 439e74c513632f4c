import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { systemClock } from './clock';

/**
 * What a gateway killed mid-work leaves behind (issue 37): audio files half written
 * (`audio/incoming/<pid>.<uuid>.tmp`, `audio/xx/<hash>.<pid>.<ms>.tmp`) and the private socket
 * directories of embedded databases (`$TMPDIR/gw-pglite-*`). Swept at start: a file or directory
 * whose owning process is gone (or, for a socket directory, whose socket no longer answers) goes;
 * those of live processes (another gateway on this machine) stay.
 */
export interface SweepResult {
  audioTempFiles: number;
  socketDirs: number;
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid a temporary audio file names: `<pid>.<uuid>.tmp` in incoming/, `<hash>.<pid>.<ms>.tmp` beside the blobs. */
function pidOfAudioTemp(name: string): number | null {
  let m = /^(\d+)\.[0-9a-f-]+\.tmp$/.exec(name);
  if (m) return Number(m[1]);
  m = /^[0-9a-f]{64}\.(\d+)\.\d+\.tmp$/.exec(name);
  return m ? Number(m[1]) : null;
}

async function entries(dir: string) {
  try {
    return await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

async function sweepAudio(audioRoot: string): Promise<number> {
  let removed = 0;
  const dirs = [
    path.join(audioRoot, 'incoming'),
    ...(await entries(audioRoot)).filter((e) => e.isDirectory() && /^[0-9a-f]{2}$/.test(e.name)).map((e) => path.join(audioRoot, e.name)),
  ];
  for (const dir of dirs) {
    for (const e of await entries(dir)) {
      if (!e.isFile() || !e.name.endsWith('.tmp')) continue;
      const pid = pidOfAudioTemp(e.name);
      if (pid !== null && processAlive(pid)) continue;
      await fs.rm(path.join(dir, e.name), { force: true });
      removed++;
    }
  }
  return removed;
}

/** Whether a PostgreSQL socket answers a connection (a live embedded database is behind it). */
function socketAnswers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createConnection(socketPath);
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
    s.setTimeout(500, () => done(true)); // slow is not dead
  });
}

async function sweepSocketDirs(tmp: string, keep: ReadonlySet<string>): Promise<number> {
  let removed = 0;
  for (const e of await entries(tmp)) {
    if (!e.isDirectory() || !e.name.startsWith('gw-pglite-')) continue;
    const dir = path.join(tmp, e.name);
    if (keep.has(dir)) continue;
    const pid = /^gw-pglite-(\d+)-/.exec(e.name)?.[1];
    if (pid && processAlive(Number(pid))) continue;
    // A directory that names no process may belong to a database still starting (no socket yet). File
    // times are the real clock, so the age is read on it (systemClock), not on the process clock.
    if (
      !pid &&
      (await fs.stat(dir).then(
        (s) => systemClock.nowMs() - s.mtimeMs < 120_000,
        () => true,
      ))
    )
      continue;
    if (await socketAnswers(path.join(dir, '.s.PGSQL.5432'))) continue;
    await fs.rm(dir, { recursive: true, force: true }).then(
      () => removed++,
      () => undefined,
    );
  }
  return removed;
}

export async function sweepCrashLeftovers(opts: { dataDir: string; keepSocketDirs?: string[]; tmpDir?: string }): Promise<SweepResult> {
  const [audioTempFiles, socketDirs] = await Promise.all([
    sweepAudio(path.join(opts.dataDir, 'audio')),
    sweepSocketDirs(opts.tmpDir ?? os.tmpdir(), new Set(opts.keepSocketDirs ?? [])),
  ]);
  return { audioTempFiles, socketDirs };
}
