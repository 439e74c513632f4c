/** Where a streaming call puts the bytes of its current attempt. */
export interface StreamSink {
  /** Whether the consumer has taken bytes: from then on a failure cannot be retried. */
  readonly forwarded: boolean;
  push(bytes: Buffer): void;
  /** The current attempt failed before the consumer took anything: its bytes are dropped. */
  discard(): void;
}

/**
 * A vendor's audio as it arrives. The body is read eagerly; while the consumer has taken none of
 * it, a failed attempt is retried exactly as in postForAudio and the consumer never sees its bytes.
 * Once bytes have been taken, a failure ends the iteration with the provider's error. Iteration
 * ends only after the whole body passed the adapter's `accept` (the checks of a buffered call).
 */
export class UpstreamAudioStream implements AsyncIterable<Buffer> {
  private queue: Buffer[] = [];
  private outcome: { ok: true } | { ok: false; error: unknown } | undefined;
  private wake: (() => void) | undefined;
  private taken = false;
  /** The whole body once accepted (repaired where `accept` repairs), or the provider's error. */
  readonly whole: Promise<Buffer>;

  constructor(run: (sink: StreamSink) => Promise<Buffer>) {
    const self = this;
    const sink: StreamSink = {
      get forwarded() {
        return self.taken;
      },
      push: (bytes) => {
        if (!bytes.length) return;
        this.queue.push(bytes);
        this.notify();
      },
      discard: () => {
        this.queue = [];
      },
    };
    this.whole = run(sink).then(
      (body) => {
        this.outcome = { ok: true };
        this.notify();
        return body;
      },
      (error) => {
        this.queue = [];
        this.outcome = { ok: false, error };
        this.notify();
        throw error;
      },
    );
    // A consumer may only iterate (and get the error there): the promise itself must not go unhandled.
    this.whole.catch(() => undefined);
  }

  /** Whether any byte has been handed to the consumer. */
  get forwarded() {
    return this.taken;
  }

  private notify() {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    for (;;) {
      if (this.outcome && !this.outcome.ok) throw this.outcome.error;
      if (this.queue.length) {
        this.taken = true;
        yield this.queue.shift()!;
        continue;
      }
      if (this.outcome) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}
