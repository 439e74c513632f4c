import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainEvent } from '../events/bus';
import type { ColumnRow } from '../database/row-batch';
import type { TallyRow } from './status/measurement';

/** A creation stated before its transaction (`ChangeRunner.create`): its rows, events and tally deltas (its answer stays with its caller). */
export interface PreparedCreation {
  em: EntityManager;
  /** Its new rows, trail entries and activity lines, in the order stated. */
  rows: [table: string, row: ColumnRow][];
  /** Its own events (the score changes are the commit's). */
  staged: DomainEvent[];
  /** What its new rows add to the tally (tally-delta.ts). */
  added: TallyRow[];
  audited: boolean;
}

/** How a group of creations is committed: in one transaction, then its events published. */
export type CommitCreations = (group: readonly PreparedCreation[]) => Promise<void>;

/** At most this many rows (all tables) ride in one group: a batch import of 1,000 requirements goes alone. */
const GROUP_ROWS_MAX = 1200;

interface Waiting {
  creation: PreparedCreation;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for creations (issue #36). A creation reads nothing and conflicts with nothing (its
 * ids are new), so the creations that arrive while one transaction is under way wait for it and
 * then commit together in the next: one `BEGIN`, one statement inserting all their rows and reading
 * the tally, one with the snapshots and deliveries and the `COMMIT`. Alone, a creation commits at
 * once, exactly as before (four statements in two round trips); under concurrent writes the
 * per-transaction cost (round trips, parsing, planning, the commit's flush, the tally read) is paid
 * once per group. Every creation keeps its own rows, trail entry and events; the score figures and
 * `compliance.score_changed` are the group's (before it and after it). A group that fails is retried
 * one creation at a time, so one creation's failure is its own.
 */
export class Creations {
  private readonly queue: Waiting[] = [];
  private draining = false;

  constructor(private readonly commit: CommitCreations) {}

  /** Resolves once the creation has committed (and its events were published); rejects with its own failure. */
  submit(creation: PreparedCreation): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ creation, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length) {
        const group = this.nextGroup();
        try {
          await this.commitGroup(group);
          for (const w of group) w.resolve();
        } catch (err) {
          if (group.length === 1) group[0].reject(err);
          else for (const w of group) await this.commitGroup([w]).then(w.resolve, w.reject);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  /** The oldest waiting creations, up to `GROUP_ROWS_MAX` rows (at least one creation). */
  private nextGroup(): Waiting[] {
    let rows = this.queue[0].creation.rows.length;
    let n = 1;
    while (n < this.queue.length && rows + this.queue[n].creation.rows.length <= GROUP_ROWS_MAX) rows += this.queue[n++].creation.rows.length;
    return this.queue.splice(0, n);
  }

  private commitGroup(group: Waiting[]): Promise<void> {
    return this.commit(group.map((w) => w.creation));
  }
}
