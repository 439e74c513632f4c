/**
 * The most recently used values, bounded by their total size (the audio cache's hot tier, kept
 * answers). A Map keeps insertion order, so re-inserting on access gives LRU eviction
 * for free. A value larger than a quarter of the bound is not kept: one huge value must not flush
 * everything else.
 */
export class SizeBoundedLru<V extends { size: number }> {
  private readonly items = new Map<string, V>();
  private bytes = 0;
  /** The most recently used key: asking for it again needs no reordering (a hot value asked for in a row). */
  private newest: string | undefined;

  constructor(private readonly maxBytes: number) {}

  get(key: string): V | undefined {
    const v = this.items.get(key);
    if (v && key !== this.newest) {
      this.items.delete(key);
      this.items.set(key, v);
      this.newest = key;
    }
    return v;
  }

  set(key: string, value: V): void {
    if (value.size > this.maxBytes / 4) return;
    this.delete(key);
    this.items.set(key, value);
    this.newest = key;
    this.bytes += value.size;
    for (const [k, v] of this.items) {
      if (this.bytes <= this.maxBytes) break;
      this.items.delete(k);
      this.bytes -= v.size;
    }
  }

  delete(key: string): void {
    const v = this.items.get(key);
    if (v) {
      this.items.delete(key);
      this.bytes -= v.size;
      if (key === this.newest) this.newest = undefined;
    }
  }

  clear(): void {
    this.items.clear();
    this.newest = undefined;
    this.bytes = 0;
  }

  get size() {
    return { entries: this.items.size, bytes: this.bytes };
  }
}
