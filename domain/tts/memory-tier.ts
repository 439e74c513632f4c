// The hot tier: recent audio files kept in memory, so repeated reads and generations skip the database.
import { SizeBoundedLru } from '../util/size-bounded-lru';
import { clock } from '../clock';
import type { AudioFormat } from './catalogue';
import type { GenerationResponse } from './generation-response';

/** What serving one audio file needs, kept beside its bytes in the hot tier. */
export interface AudioView {
  hash: string;
  provider: string;
  format: AudioFormat;
  blobKey: string;
  fileSize: number;
  expiresAt: number | null;
  /** The rest of a generation response, so a repeated generate is answered without the database. */
  voice: string;
  duration: number;
  cost: number;
  generatedAt: string;
}

export interface HotItem {
  size: number;
  data: Buffer;
  view: AudioView;
  /** `generate`'s answer for a cache hit on this item: the same (frozen) object every time. */
  hitResponse?: GenerationResponse;
}

/**
 * Kept coherent across instances by `invalidate` (which tells the others through `onInvalidated`)
 * and by each item's expiry, checked on every read.
 */
export class MemoryTier {
  private readonly items: SizeBoundedLru<HotItem>;

  constructor(
    maxBytes: number,
    private readonly onInvalidated?: (hashes: string[] | 'all') => void,
  ) {
    this.items = new SizeBoundedLru<HotItem>(maxBytes);
  }

  /** The item of `hash` unless it has expired (an expired one is dropped). */
  get(hash: string): HotItem | undefined {
    const hot = this.items.get(hash);
    if (!hot) return undefined;
    if (hot.view.expiresAt === null || hot.view.expiresAt > clock.nowMs()) return hot;
    this.items.delete(hash);
    return undefined;
  }

  set(hash: string, data: Buffer, view: AudioView): void {
    this.items.set(hash, { size: data.length, data, view });
  }

  /** Items held now, and their bytes. */
  get size(): { entries: number; bytes: number } {
    return this.items.size;
  }

  /** Drops entries from this instance's tier (and, unless told not to, from every other instance's). */
  invalidate(hashes: string[] | 'all', propagate = true): void {
    if (hashes === 'all') this.items.clear();
    else hashes.forEach((h) => this.items.delete(h));
    if (propagate) this.onInvalidated?.(hashes);
  }
}
