/**
 * The one place the domain reads "now". Every rule that depends on the time of day (history
 * buckets, expiry, rate windows, leases, timestamps on records) asks this clock, so a test can run
 * the whole gateway at an instant it chooses (just after midnight UTC, the last second of a year)
 * instead of whenever the suite happens to start.
 *
 * It is one clock per process, not per gateway: entities stamp their own creation times and have
 * no dependencies to carry a clock in, and a process has one clock anyway.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  nowMs(): number;
}

export const systemClock: Clock = { nowMs: () => Date.now() };

/**
 * A clock that reads `start` at the moment it is made and then advances in real time, so
 * timeouts, leases and elapsed-time measures keep working while the calendar is where the test
 * wants it.
 */
export function clockStartingAt(start: Date | string | number): Clock {
  const startMs = new Date(start).getTime();
  if (Number.isNaN(startMs)) throw new Error(`clockStartingAt: not a time: ${String(start)}`);
  const offset = startMs - Date.now();
  return { nowMs: () => Date.now() + offset };
}

let current: Clock = systemClock;

export const clock = {
  nowMs: (): number => current.nowMs(),
  now: (): Date => new Date(current.nowMs()),
  /** Replaces the process clock; returns a function that puts the previous one back. */
  use(next: Clock): () => void {
    const previous = current;
    current = next;
    return () => {
      current = previous;
    };
  },
};
