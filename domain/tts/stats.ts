import type { EntityManager } from '@mikro-orm/postgresql';
import { PROVIDER_IDS } from './catalogue';
import { clock } from '../clock';

export interface ProviderStatsView {
  requests: number;
  charactersProcessed: number;
  totalCost: number;
  /** milliseconds per upstream generation */
  avgLatency: number;
  errors: number;
}

/** Persistent per-provider counters, incremented atomically in SQL so they survive restarts and races. */
export class ProviderStatsRecorder {
  constructor(private readonly rootEm: EntityManager) {}

  async record(provider: string, r: { characters: number; cost: number; latencyMs: number; error: boolean }) {
    await this.rootEm.getConnection().execute(
      `insert into provider_stats (provider, requests, characters_processed, total_cost, total_latency_ms, errors)
       values (?, 1, ?, ?, ?, ?)
       on conflict (provider) do update set
         requests = provider_stats.requests + 1,
         characters_processed = provider_stats.characters_processed + excluded.characters_processed,
         total_cost = provider_stats.total_cost + excluded.total_cost,
         total_latency_ms = provider_stats.total_latency_ms + excluded.total_latency_ms,
         errors = provider_stats.errors + excluded.errors`,
      [provider, r.error ? 0 : r.characters, r.error ? 0 : r.cost, r.latencyMs, r.error ? 1 : 0],
    );
  }

  async read(): Promise<Record<string, ProviderStatsView>> {
    const rows = await this.rootEm
      .getConnection()
      .execute<{ provider: string; requests: number; characters_processed: string; total_cost: string; total_latency_ms: string; errors: number }[]>(
        'select provider, requests, characters_processed, total_cost, total_latency_ms, errors from provider_stats',
      );
    const stats: Record<string, ProviderStatsView> = {};
    for (const p of PROVIDER_IDS) stats[p] = { requests: 0, charactersProcessed: 0, totalCost: 0, avgLatency: 0, errors: 0 };
    for (const r of rows) {
      const requests = Number(r.requests);
      stats[r.provider] = {
        requests,
        charactersProcessed: Number(r.characters_processed),
        totalCost: Math.round(Number(r.total_cost) * 1e6) / 1e6,
        avgLatency: requests ? Math.round((Number(r.total_latency_ms) / requests) * 10) / 10 : 0,
        errors: Number(r.errors),
      };
    }
    return stats;
  }
}

/**
 * Counts audio reads in memory and writes them in one statement a second: serving audio must not
 * cost a database write per request, yet `accessCount` stays current to within that second
 * (and reads of the metadata add what is still pending).
 */
/** Flushes in a row that readers may put off (one a second): a count is written within this many seconds. */
const MAX_DEFERRED_FLUSHES = 5;

export class AccessRecorder {
  private pending = new Map<string, { count: number; last: Date }>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly rootEm: EntityManager,
    flushMs = 1000,
  ) {
    this.timer = setInterval(() => void this.flush().catch(() => undefined), flushMs);
    this.timer.unref();
  }

  record(hash: string) {
    const p = this.pending.get(hash);
    if (p) {
      p.count++;
      p.last = clock.now();
    } else {
      this.pending.set(hash, { count: 1, last: clock.now() });
    }
  }

  pendingFor(hash: string) {
    return this.pending.get(hash);
  }

  /**
   * Runs `read` (a read of the stored counts) while no batch moves from memory to the table: a batch
   * being written is in neither the pending counts nor the table yet, so a reader that adds the two
   * waits for the writes under way, and no flush starts until it has added them.
   */
  async steadyRead<T>(read: () => Promise<T>): Promise<T> {
    this.readers++;
    try {
      await Promise.all([...this.writing].map((w) => w.catch(() => undefined)));
      return await read();
    } finally {
      this.readers--;
    }
  }

  async flush(force = false) {
    if (!this.pending.size) return;
    // Put off while a reader adds pending counts to stored ones, but not for ever under a stream of reads.
    if (this.readers > 0 && !force && ++this.deferred < MAX_DEFERRED_FLUSHES) return;
    this.deferred = 0;
    const batch = this.pending;
    this.pending = new Map();
    const write = (async () => {
      const conn = this.rootEm.getConnection();
      for (const [hash, { count, last }] of batch) {
        await conn.execute('update audio_entries set access_count = access_count + ?, last_accessed_at = greatest(last_accessed_at, ?) where hash = ?', [
          count,
          last,
          hash,
        ]);
      }
    })();
    this.writing.add(write);
    try {
      await write;
    } finally {
      this.writing.delete(write);
    }
  }

  private readonly writing = new Set<Promise<void>>();
  private readers = 0;
  private deferred = 0;

  async close() {
    clearInterval(this.timer);
    await this.flush(true).catch(() => undefined);
  }
}
