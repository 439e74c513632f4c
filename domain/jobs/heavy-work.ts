import { DomainError } from '../errors';

/**
 * Heavy work (report rendering and signing, traceability matrices, audit-trail verification) is
 * capped per kind across every instance (issue 37: ten reports and batches of verifications starved
 * the database pool and the event loop for minutes). A slot is a PostgreSQL advisory lock on a shared
 * database (`trySlot`), a counter in this process on the embedded one (a single instance). Identical
 * requests that arrive while one is computed share its result (a tRPC batch of 100 × traceability, 20
 * GraphQL aliases of one verification), keyed by what the caller may see.
 */
export type HeavyKind = 'report' | 'traceability' | 'audit-verify';

export const DEFAULT_HEAVY_SLOTS: Record<HeavyKind, number> = { report: 2, traceability: 2, 'audit-verify': 2 };

export interface SlotSource {
  trySlot(kind: string, slots: number): Promise<(() => Promise<void>) | null>;
}

type Release = () => Promise<void>;

export class HeavyWork {
  private readonly local = new Map<HeavyKind, number>();
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly shared?: SlotSource,
    readonly slots: Record<HeavyKind, number> = { ...DEFAULT_HEAVY_SLOTS },
  ) {}

  /** A slot of `kind` now, or null when every slot is taken (on any instance). */
  async tryEnter(kind: HeavyKind): Promise<Release | null> {
    const n = this.local.get(kind) ?? 0;
    // This instance never holds more than the cap, whatever the shared locks say.
    if (n >= this.slots[kind]) return null;
    this.local.set(kind, n + 1);
    let sharedRelease: Release | null = null;
    if (this.shared) {
      sharedRelease = await this.shared.trySlot(`heavy:${kind}`, this.slots[kind]);
      if (!sharedRelease) {
        this.local.set(kind, (this.local.get(kind) ?? 1) - 1);
        return null;
      }
    }
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      this.local.set(kind, (this.local.get(kind) ?? 1) - 1);
      await sharedRelease?.();
    };
  }

  /**
   * Runs `fn` in a slot of `kind`, waiting up to `waitMs` for one; over that, 503 with Retry-After.
   * Calls with the same `shareKey` while one runs get its result instead of computing again.
   */
  run<T>(kind: HeavyKind, shareKey: string, fn: () => Promise<T>, waitMs = 5_000): Promise<T> {
    const key = `${kind}\u0000${shareKey}`;
    const running = this.inFlight.get(key) as Promise<T> | undefined;
    if (running) return running;
    const work = (async () => {
      const release = await this.waitForSlot(kind, waitMs);
      try {
        return await fn();
      } finally {
        await release();
      }
    })();
    this.inFlight.set(key, work);
    const forget = () => {
      if (this.inFlight.get(key) === work) this.inFlight.delete(key);
    };
    work.then(forget, forget);
    return work;
  }

  private async waitForSlot(kind: HeavyKind, waitMs: number): Promise<Release> {
    // An elapsed wait, not a calendar time: the monotonic clock.
    const until = performance.now() + waitMs;
    for (let pause = 25; ; pause = Math.min(500, pause * 2)) {
      const release = await this.tryEnter(kind);
      if (release) return release;
      if (performance.now() + pause > until) break;
      await new Promise((r) => setTimeout(r, pause));
    }
    throw new DomainError('SERVICE_UNAVAILABLE', `Too many ${kind} computations are running; retry shortly`, {
      details: { kind, slots: this.slots[kind] },
      retryAfterSeconds: 2,
    });
  }
}
