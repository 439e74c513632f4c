import type { EntityManager } from '@mikro-orm/postgresql';
import { SizeBoundedLru } from '../../util/size-bounded-lru';

/**
 * The current version of the compliance read model (requirements and audit findings). It changes
 * whenever a committed transaction changed either table, on any instance; an answer computed from
 * them stays valid while the version read *before* computing it is still the current one.
 */
export async function readModelVersion(rootEm: EntityManager): Promise<string> {
  const rows: { version: string | number }[] = await rootEm.getConnection().execute('select sum("version") as "version" from "read_model_version"');
  return String(rows[0]?.version ?? '');
}

/**
 * How long a version known from the write count is trusted without reading it again: a statement
 * the database guard gave up on (a hung database) may still commit after its failure moved the count.
 */
const KNOWN_VERSION_MS = 1000;

/** Bytes of answers the read model keeps (every transport shares them). */
export const READ_MODEL_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * The read model's version and the answers computed from it, for every transport.
 *
 * Reading the version is one small query, and a reader must see every change committed before it
 * asked. Readers that ask while a version query is running wait for the next one, which starts when
 * the running one ends and answers all of them: under load one query serves many requests, and none
 * is answered from a query that began before it arrived.
 */
export class ReadModel {
  private readonly answers: SizeBoundedLru<{ size: number; version: string; value: unknown }>;
  /** False when configured to keep nothing: every read is computed. */
  readonly keeps: boolean;
  private running = false;
  private waiting: { resolve: (v: string) => void; reject: (e: unknown) => void }[] = [];
  /** The last version read, the write count when its query was sent and when (only with `soleWriter`). */
  private known: { version: string; epoch: number; atMs: number } | undefined;

  /**
   * `soleWriter`: when this process is the only one that can change the database, its count of
   * statements that may change data (database/write-epoch.ts); while it has not moved since a version
   * was read, that version is still the current one and is not read again.
   */
  constructor(
    private readonly rootEm: EntityManager,
    maxBytes = READ_MODEL_CACHE_BYTES,
    private readonly soleWriter?: () => number,
  ) {
    this.answers = new SizeBoundedLru(maxBytes);
    this.keeps = maxBytes > 0;
  }

  version(): Promise<string> {
    const known = this.known;
    if (known && this.soleWriter!() === known.epoch && performance.now() - known.atMs < KNOWN_VERSION_MS) return Promise.resolve(known.version);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (!this.running) void this.query();
    });
  }

  private async query() {
    this.running = true;
    while (this.waiting.length) {
      const batch = this.waiting;
      this.waiting = [];
      const epoch = this.soleWriter?.();
      const atMs = performance.now();
      try {
        const v = await readModelVersion(this.rootEm);
        if (epoch !== undefined) this.known = { version: v, epoch, atMs };
        for (const w of batch) w.resolve(v);
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    this.running = false;
  }

  /** A kept answer for `key` computed at `version`, if there is one. */
  get<T>(key: string, version: string): T | undefined {
    const entry = this.answers.get(key);
    if (!entry) return undefined;
    if (entry.version === version) return entry.value as T;
    this.answers.delete(key);
    return undefined;
  }

  /** Keeps an answer computed after reading `version`; `size` is its JSON length (the answer's cost in memory, near enough). */
  set(key: string, version: string, value: unknown, size: number): void {
    this.answers.set(key, { size: size + key.length, version, value });
  }

  /**
   * The answer kept for `key` at the current version, or undefined (nothing kept, or kept for an
   * older version). Reads the version like `cached` does, so a change committed before the call is
   * never hidden; computes nothing.
   */
  async kept<T>(key: string): Promise<T | undefined> {
    // Nothing kept under the key at any version: no version to read.
    if (!this.keeps || !this.answers.get(key)) return undefined;
    return this.get<T>(key, await this.version());
  }

  /**
   * The answer for `key`: kept, or computed by `compute` and kept. Answers are shared between
   * requests, so `compute` must return a value nobody changes afterwards.
   */
  async cached<T>(key: string, compute: () => Promise<T>): Promise<T> {
    if (!this.keeps) return compute();
    const version = await this.version();
    const hit = this.get<T>(key, version);
    if (hit !== undefined) return hit;
    const value = await compute();
    this.set(key, version, value, JSON.stringify(value).length);
    return value;
  }
}
