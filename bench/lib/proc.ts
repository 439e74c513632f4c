import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

/** A child process the bench started, with the address it listens on. */
export interface Child {
  name: string;
  proc: ChildProcess;
  url: string;
  pid: number;
  /** Milliseconds from spawn until the listening line appeared. */
  listenMs: number;
}

const running = new Set<ChildProcess>();
const stopping = new WeakSet<ChildProcess>();

/** Resident set size of a process in MB, from /proc/<pid>/status (Linux). */
export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

const CLOCK_TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux

/**
 * One process's `/proc/<pid>/stat`: its command name, parent, CPU (user + system) in ms, and the CPU
 * of its children that have exited and been waited for (`reapedMs`); undefined once it is gone.
 */
function statOf(pid: number | string): { name: string; ppid: number; cpuMs: number; reapedMs: number } | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone meanwhile
  }
  // Fields after the command name, which may hold spaces and parentheses.
  const close = stat.lastIndexOf(')');
  const rest = stat.slice(close + 2).split(' ');
  const ms = (ticks: number) => (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
  return {
    name: stat.slice(stat.indexOf('(') + 1, close),
    ppid: Number(rest[1]),
    cpuMs: ms(Number(rest[11]) + Number(rest[12])),
    reapedMs: ms(Number(rest[13]) + Number(rest[14])),
  };
}

const pids = () => fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));

/** CPU time (user + system) in ms used so far by one process; 0 once it is gone. */
export function cpuMs(pid: number): number {
  return statOf(pid)?.cpuMs ?? 0;
}

/** The process and every descendant still running (a gateway forks its embedded database). */
export function processTree(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of pids()) {
    const stat = statOf(entry);
    if (stat) parentOf.set(Number(entry), stat.ppid);
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parentOf) if (parent === tree[i]) tree.push(child);
  return tree;
}

/** RSS in MB of a process and all its descendants: what the machine gives to "the gateway". */
export function treeRssMb(pid: number): number {
  return processTree(pid).reduce((sum, p) => sum + (rssMb(p) || 0), 0);
}

/** CPU time (user + system) in ms used so far by a process and its running descendants. */
export function treeCpuMs(pid: number): number {
  return processTree(pid).reduce((sum, p) => sum + cpuMs(p), 0);
}

/** Busy and total CPU time of the whole machine so far, in ms (/proc/stat, every core). */
export function machineCpuMs(): { busy: number; total: number } {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1, 9).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fields;
  const busy = user + nice + system + irq + softirq + steal;
  return { busy: (busy * 1000) / CLOCK_TICKS_PER_SECOND, total: ((busy + idle + iowait) * 1000) / CLOCK_TICKS_PER_SECOND };
}

/**
 * CPU time in ms used so far by every process named `name` (`postgres`: the server and its backends),
 * those that have exited included: a backend that closes during a run (a pool's idle connection) takes
 * its CPU with it, and a sum over the living alone went down, to a negative cost per request, with
 * three gateways on one server (2026-11-26). Its parent, the postmaster, holds it once it is reaped.
 */
export function namedCpuMs(name: string): number {
  let total = 0;
  for (const entry of pids()) {
    const stat = statOf(entry);
    if (stat?.name === name) total += stat.cpuMs + stat.reapedMs;
  }
  return total;
}

/**
 * CPU time in ms used so far by the PostgreSQL processes that work for database `database`: its
 * backends and autovacuum workers, told by their process titles (pg_stat_activity's datname is the
 * same name). The server's shared processes (WAL writer, checkpointer) serve every database on the
 * machine, other engineers' too, and are left out. Other databases' backends are left out: with several gateways on one server,
 * each on its own database, a run is charged its own database's work, not the others' background
 * jobs. A backend of this database that exits during the run takes its CPU with it (the postmaster's
 * reaped CPU is not told apart by database), so a run whose pool is busy is what this measures well.
 */
export function databaseCpuMs(database: string): number {
  let total = 0;
  for (const entry of pids()) {
    const stat = statOf(entry);
    if (stat?.name !== 'postgres') continue;
    let title: string;
    try {
      title = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
    } catch {
      continue; // gone meanwhile
    }
    // A backend: `postgres: [<cluster name>: ]<user> <database> <client>(<port>) …` or `… [local] …`.
    const backend = /^postgres: (?:\S+: )?\S+ (\S+) (?:\[local\]|\S*\(\d+\))/.exec(title);
    const autovacuum = /^postgres: (?:\S+: )?autovacuum worker (\S+)/.exec(title);
    const own = (backend ?? autovacuum)?.[1];
    if (own === database) total += stat.cpuMs;
  }
  return total;
}

/**
 * Waits until a process tree has settled: under `idleShare` of one core over `windowMs`, at most
 * `timeoutMs`. Work a bulk load leaves behind (the audit seal catching up, the tally fold, the
 * statistics upkeep) is then done before a measurement starts, so it is not charged to the
 * requests measured next. Resolves with how long it waited.
 */
export async function waitUntilQuiet(
  pid: number,
  { idleShare = 0.05, windowMs = 1000, timeoutMs = 60_000, alsoNamed = undefined as string | undefined } = {},
): Promise<number> {
  const start = performance.now();
  // `alsoNamed`: processes outside the tree whose work the load left behind too (`postgres`: the
  // server's backends running the upkeep's ANALYZE or VACUUM, its autovacuum where it has one).
  const cpu = () => treeCpuMs(pid) + (alsoNamed ? namedCpuMs(alsoNamed) : 0);
  for (;;) {
    const before = cpu();
    await new Promise((r) => setTimeout(r, windowMs));
    const used = cpu() - before;
    if (used <= idleShare * windowMs || performance.now() - start > timeoutMs) return performance.now() - start;
  }
}

/**
 * Starts `node <script>` and waits for a line matching `readyLine` (its first group is the URL).
 * stdout/stderr are kept (the last 8 KB) so a failed start explains itself.
 */
export function startChild(
  name: string,
  script: string,
  env: NodeJS.ProcessEnv,
  readyLine: RegExp,
  timeoutMs = 60_000,
  nodeArgs: string[] = [],
): Promise<Child> {
  const started = performance.now();
  const proc = spawn(process.execPath, [...nodeArgs, script], { env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  running.add(proc);
  proc.once('exit', () => running.delete(proc));
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8192);
  };
  proc.stderr!.on('data', keep);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${name} did not start within ${timeoutMs} ms`)), timeoutMs);
    const fail = (err: Error) => {
      clearTimeout(timer);
      proc.kill('SIGKILL');
      reject(new Error(`${err.message}\n--- ${name} output ---\n${output}`));
    };
    proc.once('exit', (code) => fail(new Error(`${name} exited with code ${code} before it was ready`)));
    // Matched once: after the ready line, output is only kept. (Matching again on a later chunk, such as
    // a log line while stopping, removed the exit listener `stopChild` waits on, and the bench hung.)
    const watch = (chunk: Buffer) => {
      keep(chunk);
      const m = readyLine.exec(output);
      if (m) {
        proc.stdout!.off('data', watch);
        proc.stdout!.on('data', keep);
        clearTimeout(timer);
        proc.removeAllListeners('exit');
        proc.once('exit', (code, signal) => {
          running.delete(proc);
          // A server dying under load must say why, not just turn into connection errors.
          if (!stopping.has(proc)) console.error(`[bench] ${name} exited unexpectedly (code ${code}, signal ${signal})\n--- ${name} output ---\n${output}`);
        });
        resolve({ name, proc, url: m[1], pid: proc.pid!, listenMs: performance.now() - started });
      }
    };
    proc.stdout!.on('data', watch);
  });
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
export function stopChild(child: Child | undefined, graceMs = 30_000): Promise<void> {
  if (!child || child.proc.exitCode !== null || child.proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.proc.kill('SIGKILL'), graceMs);
    child.proc.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    stopping.add(child.proc);
    child.proc.kill('SIGTERM');
  });
}

/** Last resort on an abnormal exit of the bench itself. */
export function killAllChildren() {
  for (const p of running) p.kill('SIGKILL');
}

/** Asks a child started with BENCH_COUNT_SQL=1 how many SQL statements it has sent so far. */
export async function sqlCount(child: Child): Promise<number> {
  return (await sqlCounters(child)).count;
}

/** The same, with the wall time (ms) during which the child had at least one transaction open. */
export function sqlCounters(child: Child): Promise<{ count: number; transactionMs: number }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no sql-count answer (is BENCH_COUNT_SQL=1 set?)')), 5000);
    const onMessage = (m: any) => {
      if (m?.type !== 'sql-count') return;
      clearTimeout(timer);
      child.proc.off('message', onMessage);
      resolve({ count: m.count, transactionMs: m.transactionMs ?? NaN });
    };
    child.proc.on('message', onMessage);
    child.proc.send({ type: 'sql-count' });
  });
}
