/**
 * Issue #33: `npm start` on a built checkout, as a user runs it: the bench spawns `npm start` itself
 * (npm, its shell, then node) with a fresh DATA_DIR and polls GET /api/v1/health until 200. The
 * baseline in the same run: `node` starting bare node:http (the least a start can cost on this
 * machine now). Median of BENCH_ROUNDS starts, alternating.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { median, ROUNDS } from '../lib/pair';
import type { Report } from '../lib/report';

async function timeStart(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, urlLine: RegExp, probe: string): Promise<number> {
  const t0 = performance.now();
  // Its own process group, so npm's shell and node stop with it (the group is this child's, no one else's).
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ready line within 60 s: ${out.slice(-500)}`)), 60_000);
      const watch = (c: Buffer) => {
        out = (out + c.toString()).slice(-8000);
        const m = urlLine.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      };
      child.stdout.on('data', watch);
      child.stderr.on('data', watch);
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${out.slice(-500)}`)));
    });
    for (;;) {
      const res = await fetch(`${url}${probe}`).catch(() => null);
      if (res?.status === 200) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    return performance.now() - t0;
  } finally {
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      const kill = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 20_000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      process.kill(-child.pid!, 'SIGTERM');
    });
  }
}

export async function runNpmStartCase(
  report: Report,
  repoRoot: string,
  env: (dataDir: string) => NodeJS.ProcessEnv,
  tmp: string,
  bareScript: string,
  bareEnv: NodeJS.ProcessEnv,
) {
  const starts: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const dir = fs.mkdtempSync(path.join(tmp, 'npm-start-'));
    starts.push(await timeStart('npm', ['start', '--silent'], repoRoot, env(dir), /Gateway ready at (http:\/\/\S+?) /, '/api/v1/health'));
    bare.push(await timeStart(process.execPath, [bareScript], repoRoot, bareEnv, /LISTENING (http:\/\/\S+)/, '/'));
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const m = median(starts);
  report.check(
    '#33 `npm start` on a fresh DATA_DIR to GET /api/v1/health 200',
    '≤ 3000 ms',
    `${m.toFixed(0)} ms median (starts ${starts.map((s) => s.toFixed(0)).join(' / ')} ms; bare node:http start ${median(bare).toFixed(0)} ms in the same rounds)`,
    m <= 3000,
    `${m.toFixed(0)} ms`,
  );
}
