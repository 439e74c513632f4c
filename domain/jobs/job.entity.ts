import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';
import { clock } from '../clock';

export type JobStatus = 'queued' | 'running' | 'done' | 'failed';

/**
 * A durable unit of background work (report generation, webhook delivery). Claimed with
 * `FOR UPDATE SKIP LOCKED` and a lease, so a job whose worker dies is taken up again, and a job
 * is finished exactly once.
 */
@Entity({ tableName: 'jobs' })
@Index({ properties: ['status', 'runAt'] })
export class Job {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 40 })
  type!: string;

  @Property({ type: 'json' })
  payload!: Record<string, unknown>;

  @Property({ type: 'string', length: 12, default: 'queued' })
  status: JobStatus = 'queued';

  @Property({ type: 'integer', default: 0 })
  attempts = 0;

  @Property({ type: 'integer', default: 8 })
  maxAttempts = 8;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  runAt: Date = clock.now();

  @Property({ type: 'string', length: 80, nullable: true })
  lockedBy?: string | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  lockedUntil?: Date | null;

  @Property({ type: 'text', nullable: true })
  lastError?: string | null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = clock.now();

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  finishedAt?: Date | null;
}
