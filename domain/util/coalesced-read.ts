/**
 * A read that many callers share without any of them getting an answer older than its call: a
 * caller that asks while a read is running waits for the next one, which starts when the running one
 * ends and answers everybody who waited for it. Under load one read serves many callers.
 */
export class CoalescedRead<T> {
  private running = false;
  private waiting: { resolve: (v: T) => void; reject: (e: unknown) => void }[] = [];

  constructor(private readonly read: () => Promise<T>) {}

  next(): Promise<T> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain() {
    this.running = true;
    while (this.waiting.length) {
      const batch = this.waiting;
      this.waiting = [];
      try {
        const v = await this.read();
        for (const w of batch) w.resolve(v);
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    this.running = false;
  }
}
