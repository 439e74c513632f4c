// The progressive generations under way on this instance, shared by the generation that writes each and the reads of its stream and chunks.
import type { AudioFormat } from './catalogue';
import { LiveAudio } from './live-audio';

/** How long a finished live stream's chunk offsets are kept, so its chunk URLs keep working. */
export const LIVE_GRACE_MS = 10 * 60_000;

export class LiveStreams {
  /** Streams being made, and recently finished ones (for their chunk offsets). */
  private readonly lives = new Map<string, LiveAudio>();

  /** The stream of `hash` being made, or a new one (a failed or finished one is replaced). */
  open(hash: string, format: AudioFormat, totalChunks: number): LiveAudio {
    let live = this.lives.get(hash);
    if (!live || live.state !== 'live') {
      live = new LiveAudio(hash, format, totalChunks);
      this.lives.set(hash, live);
    }
    return live;
  }

  /** The stream of `hash` in any state: live, done (within the grace period) or failed. */
  get(hash: string): LiveAudio | undefined {
    return this.lives.get(hash);
  }

  /** Ends a stream; a finished one keeps its chunk offsets a while, a failed one goes at once. */
  end(live: LiveAudio, err?: unknown): void {
    if (err !== undefined) {
      live.fail(err);
      if (this.lives.get(live.hash) === live) this.lives.delete(live.hash);
      return;
    }
    live.finish();
    const t = setTimeout(() => {
      if (this.lives.get(live.hash) === live) this.lives.delete(live.hash);
    }, LIVE_GRACE_MS);
    t.unref();
  }
}
