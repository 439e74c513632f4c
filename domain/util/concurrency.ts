/** Maps with at most `limit` calls running at once, preserving order; the first failure rejects. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i], i);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Results taken in order, computed at most `limit` at a time and at most `lookahead` items ahead of
 * the last one taken: a consumer slower than the producers (an encoder) bounds what waits in memory.
 * `take(i)` must be called for i = 0, 1, 2, … in turn; a failed item rejects its own take.
 */
export function aheadInOrder<T, R>(
  items: readonly T[],
  limit: number,
  lookahead: number,
  fn: (item: T, index: number) => Promise<R>,
): { take(i: number): Promise<R> } {
  const pending = new Map<number, Promise<R>>();
  let started = 0;
  let running = 0;
  let taken = 0;
  let failed = false;
  const pump = () => {
    while (!failed && running < limit && started < items.length && started < taken + lookahead) {
      const i = started++;
      running++;
      const p = fn(items[i], i);
      p.then(
        () => undefined,
        () => {
          failed = true; // nothing new starts once one item failed
        },
      ).finally(() => {
        running--;
        pump();
      });
      pending.set(i, p);
    }
  };
  pump();
  return {
    take(i) {
      taken = Math.max(taken, i + 1);
      pump();
      const p = pending.get(i);
      pending.delete(i);
      return p ?? Promise.reject(new Error(`aheadInOrder: item ${i} was not started (an earlier item failed)`));
    },
  };
}
