// A job-queue worker process for the multi-instance suite: the real JobQueue from dist/, a handler
// that records when each run starts and ends, so the test can tell completed runs from killed ones.
require('reflect-metadata');
const path = require('node:path');
const dist = path.resolve(__dirname, '../../dist');
const { MikroORM } = require('@mikro-orm/postgresql');
const { ormOptions } = require(path.join(dist, 'domain/database/orm'));
const { JobQueue } = require(path.join(dist, 'domain/jobs/job-queue'));

const { DATABASE_URL, WORKER_ID, JOB_MS = '1500', LEASE_MS = '2000' } = process.env;

async function main() {
  const orm = await MikroORM.init(ormOptions(DATABASE_URL, 4));
  const conn = orm.em.getConnection();
  const queue = new JobQueue(orm.em, { instanceId: WORKER_ID, pollIntervalMs: 100, leaseMs: Number(LEASE_MS), concurrency: 2 });
  queue.register('multi.test', async (job) => {
    await conn.execute('insert into multi_job_runs (job_id, worker, attempt, phase) values (?, ?, ?, ?)', [job.id, WORKER_ID, job.attempt, 'start']);
    await new Promise((r) => setTimeout(r, Number(JOB_MS)));
    await conn.execute('insert into multi_job_runs (job_id, worker, attempt, phase) values (?, ?, ?, ?)', [job.id, WORKER_ID, job.attempt, 'end']);
  });
  queue.start();
  process.stdout.write(`worker ${WORKER_ID} ready\n`);
  process.on('SIGTERM', async () => {
    await queue.stop();
    await orm.close(true);
    process.exit(0);
  });
}

main().catch((err) => {
  console.error('worker failed:', err);
  process.exit(1);
});
