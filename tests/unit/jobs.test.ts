import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { openDatabase, type Database } from '../../domain/database/orm';
import { Job } from '../../domain/jobs/job.entity';
import { JobQueue, type RunningJob } from '../../domain/jobs/job-queue';
import { waitFor } from '../helpers/wait';

let db: Database;
let dataDir: string;
let rootEm: EntityManager;
const queues: JobQueue[] = [];

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'jobs-test-'));
  db = await openDatabase({ dataDir, databaseUrl: undefined });
  rootEm = db.orm.em as unknown as EntityManager;
});

afterEach(async () => {
  await Promise.all(queues.splice(0).map((q) => q.stop()));
});

afterAll(async () => {
  await db?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function makeQueue(instanceId: string, opts: Partial<ConstructorParameters<typeof JobQueue>[1]> = {}) {
  const q = new JobQueue(rootEm, { instanceId, pollIntervalMs: 50, concurrency: 3, retryBaseMs: 20, ...opts });
  queues.push(q);
  return q;
}

test('two workers on one database run each of 20 jobs exactly once', async () => {
  const runs = new Map<string, string[]>();
  const handler = (worker: string) => async (job: RunningJob) => {
    const list = runs.get(String(job.payload.n)) ?? [];
    list.push(worker);
    runs.set(String(job.payload.n), list);
    await new Promise((r) => setTimeout(r, 10 + Math.random() * 20));
  };
  const a = makeQueue('worker-a');
  const b = makeQueue('worker-b');
  a.register('count', handler('a'));
  b.register('count', handler('b'));

  const em = rootEm.fork();
  await em.transactional(async (tx) => {
    for (let n = 0; n < 20; n++) a.enqueue(tx as EntityManager, 'count', { n });
  });
  a.start();
  b.start();
  await waitFor(async () => (await rootEm.fork().count(Job, { type: 'count', status: 'done' })) === 20);

  expect(runs.size).toBe(20);
  for (const [, workers] of runs) expect(workers).toHaveLength(1);
  // Both workers took part: SKIP LOCKED lets each claim without waiting on the other.
  const byWorker = new Set([...runs.values()].flat());
  expect(byWorker.size).toBe(2);
  const rows = await rootEm.fork().find(Job, { type: 'count' });
  for (const row of rows) {
    expect(row.attempts).toBe(1);
    expect(row.lockedBy).toBeNull();
    expect(row.finishedAt).toBeInstanceOf(Date);
  }
});

test('a job left running by a dead worker is taken up again after its lease expires', async () => {
  const em = rootEm.fork();
  em.create(Job, {
    id: 'job_orphaned',
    type: 'orphan',
    payload: { x: 1 },
    status: 'running',
    attempts: 1,
    maxAttempts: 5,
    runAt: new Date(Date.now() - 60_000),
    lockedBy: 'dead-process',
    lockedUntil: new Date(Date.now() - 1000),
    createdAt: new Date(),
  });
  // A job whose lease is still valid must be left alone.
  em.create(Job, {
    id: 'job_leased',
    type: 'orphan',
    payload: { x: 2 },
    status: 'running',
    attempts: 1,
    maxAttempts: 5,
    runAt: new Date(Date.now() - 60_000),
    lockedBy: 'live-process',
    lockedUntil: new Date(Date.now() + 60_000),
    createdAt: new Date(),
  });
  await em.flush();
  const seen: RunningJob[] = [];
  const q = makeQueue('rescuer');
  q.register('orphan', async (job) => {
    seen.push(job);
  });
  q.start();
  await waitFor(async () => (await rootEm.fork().findOneOrFail(Job, 'job_orphaned')).status === 'done');
  await new Promise((r) => setTimeout(r, 300));
  expect(seen.map((j) => j.id)).toEqual(['job_orphaned']);
  expect(seen[0].attempt).toBe(2);
  const leased = await rootEm.fork().findOneOrFail(Job, 'job_leased');
  expect(leased.status).toBe('running');
  expect(leased.lockedBy).toBe('live-process');
});

test('a worker that lost its lease cannot finish the job', async () => {
  const q = makeQueue('slow', { leaseMs: 200 });
  let release!: () => void;
  const started = new Promise<void>((resolveStarted) => {
    q.register('slow', async () => {
      resolveStarted();
      await new Promise<void>((r) => (release = r));
    });
  });
  const em = rootEm.fork();
  const job = q.enqueue(em, 'slow', {});
  await em.flush();
  q.start();
  await started;
  // Another process steals the job (as if our lease had lapsed while we were paused).
  await rootEm.getConnection().execute(`update jobs set locked_by = 'thief', locked_until = ? where id = ?`, [new Date(Date.now() + 3_600_000), job.id], 'run');
  release();
  await new Promise((r) => setTimeout(r, 200));
  const row = await rootEm.fork().findOneOrFail(Job, job.id);
  expect(row.status).toBe('running');
  expect(row.lockedBy).toBe('thief');
});

test('failures retry with backoff, then the job is marked failed after maxAttempts', async () => {
  const q = makeQueue('retry');
  const attempts: number[] = [];
  const times: number[] = [];
  q.register('flaky', async (job) => {
    attempts.push(job.attempt);
    times.push(Date.now());
    throw new Error(`boom ${job.attempt}`);
  });
  const em = rootEm.fork();
  const job = q.enqueue(em, 'flaky', {}, { maxAttempts: 3 });
  await em.flush();
  q.start();
  await waitFor(async () => (await rootEm.fork().findOneOrFail(Job, job.id)).status === 'failed');
  expect(attempts).toEqual([1, 2, 3]);
  // Second gap (40 ms backoff) is at least the first backoff (20 ms).
  expect(times[1] - times[0]).toBeGreaterThanOrEqual(15);
  expect(times[2] - times[1]).toBeGreaterThanOrEqual(35);
  const row = await rootEm.fork().findOneOrFail(Job, job.id);
  expect(row.lastError).toBe('boom 3');
  expect(row.attempts).toBe(3);

  // A job that fails once then succeeds ends done.
  let calls = 0;
  q.register('once', async () => {
    if (++calls === 1) throw new Error('first time');
  });
  const em2 = rootEm.fork();
  const job2 = q.enqueue(em2, 'once', {});
  await em2.flush();
  q.kick();
  await waitFor(async () => (await rootEm.fork().findOneOrFail(Job, job2.id)).status === 'done');
  expect(calls).toBe(2);
});
