/** Delay before reconnect attempt n (1-based): 250 ms doubling to 10 s, with ±25 % jitter. */
export function reconnectDelayMs(attempt: number, maxMs = 10_000): number {
  const base = Math.min(maxMs, 250 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.75 + Math.random() * 0.5));
}

/** A push/pull queue behind an async iterator. */
export class AsyncQueue<T> {
  private items: T[] = [];
  private waiters: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void }[] = [];
  private failure: unknown = null;
  private ended = false;

  push(item: T) {
    if (this.ended) return;
    const w = this.waiters.shift();
    if (w) w.resolve({ value: item, done: false });
    else this.items.push(item);
  }

  fail(err: unknown) {
    if (this.ended) return;
    this.ended = true;
    this.failure = err;
    for (const w of this.waiters.splice(0)) w.reject(err);
  }

  end() {
    if (this.ended) return;
    this.ended = true;
    for (const w of this.waiters.splice(0)) w.resolve({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T>> {
    if (this.items.length) return Promise.resolve({ value: this.items.shift()!, done: false });
    if (this.failure) {
      const f = this.failure;
      this.failure = null;
      return Promise.reject(f);
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }
}
