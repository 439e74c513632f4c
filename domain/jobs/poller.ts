import { IdleStretch } from './idle-stretch';

export interface PollerOptions<T> {
  /** Read on every poll, so a running worker's settings can be tuned. */
  intervalMs: () => number;
  concurrency: () => number;
  /** One unit of due work, leased to this instance, or null when nothing is due. */
  claim: () => Promise<T | null>;
  run: (item: T) => Promise<void>;
  /** Whether an empty poll may stretch the next wait; false while work is held back for a time (an open circuit). */
  mayStretch?: () => boolean;
  onError?: (err: unknown) => void;
}

/**
 * The loop behind every lease-based worker (jobs, webhook deliveries): claim due work until the
 * concurrency is used up, poll again on a timer, and look at once when kicked (after an in-process
 * commit, or when a slot frees). Overlapping polls fold into one pass plus a repeat.
 */
export class Poller<T> {
  private running = false;
  private timer: NodeJS.Timeout | null = null;
  private polling = false;
  private pollAgain = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** Polls in a row that claimed nothing while nothing ran stretch the wait for the next (idle-stretch.ts). */
  private readonly idle = new IdleStretch();
  /** Kicks set for a moment to come (retries falling due), cleared on stop. */
  private readonly dueKicks = new Set<NodeJS.Timeout>();

  constructor(private readonly opts: PollerOptions<T>) {}

  start() {
    if (this.running) return;
    this.running = true;
    this.schedule();
  }

  /** Stops claiming and waits for the work already started. */
  async stop() {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const t of this.dueKicks) clearTimeout(t);
    this.dueKicks.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  kick() {
    this.idle.reset();
    if (this.running) void this.poll();
  }

  /** Kicks the poller once `delayMs` have passed: work this instance made due then (a retry). */
  kickAfter(delayMs: number) {
    if (!this.running) return;
    const t = setTimeout(() => {
      this.dueKicks.delete(t);
      this.kick();
    }, delayMs);
    t.unref();
    this.dueKicks.add(t);
  }

  private schedule() {
    if (!this.running) return;
    this.timer = setTimeout(() => void this.poll(), this.idle.waitMs(this.opts.intervalMs()));
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = true;
    if (this.timer) clearTimeout(this.timer);
    let claimed = 0;
    try {
      do {
        this.pollAgain = false;
        while (this.running && this.inFlight.size < this.opts.concurrency()) {
          const item = await this.opts.claim();
          if (!item) break;
          claimed++;
          const work: Promise<void> = this.opts
            .run(item)
            .catch((err) => this.opts.onError?.(err))
            .finally(() => {
              this.inFlight.delete(work);
              this.kick(); // a slot freed: more work may be waiting
            });
          this.inFlight.add(work);
        }
      } while (this.pollAgain && this.running);
    } catch (err) {
      this.opts.onError?.(err);
    } finally {
      this.polling = false;
      this.idle.looked(claimed > 0 || this.inFlight.size > 0 || this.opts.mayStretch?.() === false);
      this.schedule();
    }
  }
}
