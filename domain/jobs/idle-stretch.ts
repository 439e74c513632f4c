/**
 * The wait before an instance next looks for work it was not told about (a poll, a sweep, a check):
 * the base interval while looks find something, doubling with each look in a row that found nothing,
 * up to `maxStretch` times the base and never past `maxMs` (unless the base itself is longer). An idle
 * gateway then asks its database a few times a minute instead of several times a second; each ask
 * costs the embedded database about as much as an answered request. Whatever is told about work
 * (a commit here, a freed slot, a retry falling due) calls `reset()` and looks at once.
 */
export class IdleStretch {
  private emptyLooks = 0;

  constructor(private readonly opts: { maxStretch?: number; maxMs?: number } = {}) {}

  /** Records what the last look found. */
  looked(foundWork: boolean): void {
    this.emptyLooks = foundWork ? 0 : this.emptyLooks + 1;
  }

  reset(): void {
    this.emptyLooks = 0;
  }

  /** The wait before the next look, from the base interval. */
  waitMs(baseMs: number): number {
    const stretch = Math.min(2 ** this.emptyLooks, this.opts.maxStretch ?? 16);
    return Math.min(baseMs * stretch, Math.max(baseMs, this.opts.maxMs ?? 5_000));
  }
}
