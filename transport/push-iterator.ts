/**
 * An async iterator fed by a producer callback: lets a subscription start work (a generation) and
 * stream what it reports, ending when the producer finishes or the client unsubscribes.
 */
export function pushIterator<T>(produce: (push: (v: T) => void, signal: AbortSignal) => Promise<void>): AsyncIterableIterator<T> {
  const queue: T[] = [];
  const controller = new AbortController();
  let waiting: ((r: IteratorResult<T>) => void) | null = null;
  let finished = false;
  let failure: unknown;
  const wake = () => {
    if (!waiting) return;
    const w = waiting;
    if (queue.length) {
      waiting = null;
      w({ value: queue.shift()!, done: false });
    } else if (finished) {
      waiting = null;
      w({ value: undefined as never, done: true });
    }
  };
  produce((v) => {
    if (controller.signal.aborted) return;
    queue.push(v);
    wake();
  }, controller.signal)
    .catch((e) => (failure = e))
    .finally(() => {
      finished = true;
      wake();
    });
  return {
    next() {
      if (queue.length) return Promise.resolve({ value: queue.shift()!, done: false });
      if (finished) return failure ? Promise.reject(failure) : Promise.resolve({ value: undefined as never, done: true });
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
    return() {
      controller.abort();
      finished = true;
      queue.length = 0;
      return Promise.resolve({ value: undefined as never, done: true });
    },
    throw(e) {
      controller.abort();
      return Promise.reject(e);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
