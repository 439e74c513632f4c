import type { EntityManager } from '@mikro-orm/postgresql';
import { Poller } from './poller';
import { newId } from '../ids';
import { Job } from './job.entity';
import { clock } from '../clock';

/** What a handler learns about the job it runs. */
export interface RunningJob {
  id: string;
  type: string;
  payload: Record<string, unknown>;
  /** 1 on the first run. */
  attempt: number;
  maxAttempts: number;
}

export type JobHandler = (job: RunningJob) => Promise<void>;

export interface JobQueueOptions {
  /** Identifies this process in leases (`locked_by`). */
  instanceId: string;
  pollIntervalMs?: number;
  /** A claimed job belongs to its worker for this long; renewed while the handler runs. */
  leaseMs?: number;
  /** How many jobs this process runs at once. */
  concurrency?: number;
  /** First retry delay; doubles per attempt up to maxRetryDelayMs. */
  retryBaseMs?: number;
  maxRetryDelayMs?: number;
  onError?: (err: unknown, job: RunningJob | null) => void;
  /**
   * More conditions on the claim (`and …` over the `jobs` row, with its parameters), read on every
   * claim: fair scheduling leaves out the jobs of owners or receivers that have their share.
   */
  claimFilter?: () => { sql: string; params: unknown[] };
}

/**
 * Thrown by a handler that may not run the job now (its receiver or owner has its share): the job
 * goes back to the queue, due again after `delayMs`, and the attempt is not counted.
 */
export class JobDeferred extends Error {
  constructor(readonly delayMs: number) {
    super('deferred');
  }
}

interface JobRow {
  id: string;
  type: string;
  payload: Record<string, unknown> | string;
  attempts: number;
  max_attempts: number;
}

/**
 * A durable job queue in the `jobs` table. Jobs are enqueued inside the caller's transaction (so a
 * job exists only if the change that asked for it committed), claimed with
 * `FOR UPDATE SKIP LOCKED` under a lease, and finished only by the worker still holding the lease:
 * a worker that dies leaves its job to be taken up again once the lease runs out, and a job is
 * never marked done twice.
 */
export class JobQueue {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly opts: Required<Omit<JobQueueOptions, 'onError' | 'claimFilter'>> & Pick<JobQueueOptions, 'onError' | 'claimFilter'>;
  private readonly poller: Poller<RunningJob>;

  constructor(
    private readonly rootEm: EntityManager,
    options: JobQueueOptions,
  ) {
    this.opts = {
      pollIntervalMs: 300,
      leaseMs: 30_000,
      concurrency: 2,
      retryBaseMs: 1000,
      maxRetryDelayMs: 5 * 60_000,
      ...options,
    };
    this.poller = new Poller({
      intervalMs: () => this.opts.pollIntervalMs,
      concurrency: () => this.opts.concurrency,
      claim: () => this.claim(),
      run: (job) => this.run(job),
      onError: (err) => this.opts.onError?.(err, null),
    });
  }

  /** The queue's settings, read on every poll and retry (tests compress backoff through it). */
  get settings(): Required<Omit<JobQueueOptions, 'onError' | 'instanceId' | 'claimFilter'>> {
    return this.opts;
  }

  register(type: string, handler: JobHandler) {
    this.handlers.set(type, handler);
  }

  /**
   * Adds a job inside the caller's unit of work: it is written when the caller flushes/commits.
   * Call kick() after the commit to start it without waiting for the next poll.
   */
  enqueue(em: EntityManager, type: string, payload: Record<string, unknown>, opts: { runAt?: Date; maxAttempts?: number } = {}): Job {
    const job = em.create(Job, {
      id: newId('job'),
      type,
      payload,
      status: 'queued',
      attempts: 0,
      maxAttempts: opts.maxAttempts ?? 8,
      runAt: opts.runAt ?? clock.now(),
      createdAt: clock.now(),
    });
    em.persist(job);
    // A job due later: the poller looks then (it may be stretched out while idle).
    if (opts.runAt) this.poller.kickAfter(Math.max(0, opts.runAt.getTime() - clock.nowMs()));
    return job;
  }

  /** Looks for work now (after an in-process enqueue has committed). */
  kick() {
    this.poller.kick();
  }

  start() {
    this.poller.start();
  }

  async stop() {
    await this.poller.stop();
  }

  /** One due job (queued and due, or running with an expired lease), now leased to this instance. */
  async claim(): Promise<RunningJob | null> {
    const types = [...this.handlers.keys()];
    if (!types.length) return null;
    const placeholders = types.map(() => '?').join(', ');
    const filter = this.opts.claimFilter?.() ?? { sql: '', params: [] };
    const rows = await this.rootEm.getConnection().execute<JobRow[]>(
      `update jobs set status = 'running', locked_by = ?, locked_until = ?, attempts = attempts + 1
        where id = (
          select id from jobs
           where type in (${placeholders})
             and ((status = 'queued' and run_at <= ?) or (status = 'running' and locked_until < ?))${filter.sql}
           order by run_at
           for update skip locked
           limit 1)
        returning id, type, payload, attempts, max_attempts`,
      [this.opts.instanceId, new Date(clock.nowMs() + this.opts.leaseMs), ...types, clock.now(), clock.now(), ...filter.params],
      'all',
    );
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id,
      type: row.type,
      payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload,
      attempt: row.attempts,
      maxAttempts: row.max_attempts,
    };
  }

  private async run(job: RunningJob) {
    const conn = this.rootEm.getConnection();
    const renew = setInterval(
      () => {
        void conn
          .execute(
            `update jobs set locked_until = ? where id = ? and locked_by = ? and status = 'running'`,
            [new Date(clock.nowMs() + this.opts.leaseMs), job.id, this.opts.instanceId],
            'run',
          )
          .catch(() => undefined);
      },
      Math.max(50, Math.floor(this.opts.leaseMs / 3)),
    );
    renew.unref();
    try {
      const handler = this.handlers.get(job.type);
      if (!handler) throw new Error(`no handler for job type ${job.type}`);
      await handler(job);
      clearInterval(renew);
      await conn.execute(
        `update jobs set status = 'done', finished_at = ?, locked_by = null, locked_until = null, last_error = null
          where id = ? and locked_by = ? and status = 'running'`,
        [clock.now(), job.id, this.opts.instanceId],
        'run',
      );
    } catch (err) {
      clearInterval(renew);
      if (err instanceof JobDeferred) {
        await conn
          .execute(
            `update jobs set status = 'queued', run_at = ?, attempts = greatest(attempts - 1, 0), locked_by = null, locked_until = null where id = ? and locked_by = ? and status = 'running'`,
            [new Date(clock.nowMs() + err.delayMs), job.id, this.opts.instanceId],
            'run',
          )
          .catch((e) => this.opts.onError?.(e, job));
        this.poller.kickAfter(err.delayMs);
        return;
      }
      this.opts.onError?.(err, job);
      const message = err instanceof Error ? err.message : String(err);
      const finalFailure = job.attempt >= job.maxAttempts;
      const delay = Math.min(this.opts.maxRetryDelayMs, this.opts.retryBaseMs * 2 ** (job.attempt - 1));
      await conn
        .execute(
          finalFailure
            ? `update jobs set status = 'failed', finished_at = ?, locked_by = null, locked_until = null, last_error = ? where id = ? and locked_by = ? and status = 'running'`
            : `update jobs set status = 'queued', run_at = ?, locked_by = null, locked_until = null, last_error = ? where id = ? and locked_by = ? and status = 'running'`,
          [finalFailure ? clock.now() : new Date(clock.nowMs() + delay), message.slice(0, 2000), job.id, this.opts.instanceId],
          'run',
        )
        .catch((e) => this.opts.onError?.(e, job));
      if (!finalFailure) this.poller.kickAfter(delay);
    }
  }
}
