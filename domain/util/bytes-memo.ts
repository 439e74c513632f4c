/**
 * Values remembered by the exact bytes they were worked out from (a request body: the same bytes
 * give the same value), found again without hashing every byte.
 *
 * A Map keyed by the body's text made V8 hash all of it on every lookup (a fresh string per
 * request: ~1.4 µs for a 900-byte body, with its decoding, the largest cost of a cache-hit
 * generation after node's own). Here a lookup samples at most SAMPLES bytes and the length into a
 * fingerprint, then compares the candidates' bytes whole (memcmp, ~50 ns): a value is only ever
 * found for identical bytes. Bodies that share a fingerprint share a bucket of at most BUCKET
 * entries, the oldest dropped first, so bodies crafted to collide cost their sender cache misses
 * (the full path), never a long scan.
 */
const SAMPLES = 32;
const BUCKET = 4;

interface Entry<V> {
  bytes: Buffer;
  value: V;
}

export class BytesMemo<V> {
  private readonly buckets = new Map<number, Entry<V>[]>();
  private entries = 0;

  /** At most `maxEntries` values, each from at most `maxBytes` bytes (longer bytes are never kept). */
  constructor(
    private readonly maxEntries: number,
    readonly maxBytes: number,
  ) {}

  get(bytes: Buffer): V | undefined {
    const bucket = this.buckets.get(fingerprint(bytes));
    if (bucket === undefined) return undefined;
    for (let i = 0; i < bucket.length; i++) if (bucket[i].bytes.equals(bytes)) return bucket[i].value;
    return undefined;
  }

  set(bytes: Buffer, value: V): void {
    if (bytes.length > this.maxBytes) return;
    const key = fingerprint(bytes);
    let bucket = this.buckets.get(key);
    if (bucket?.some((e) => e.bytes.equals(bytes))) return;
    if (this.entries >= this.maxEntries) {
      this.clear();
      bucket = undefined;
    }
    if (bucket === undefined) this.buckets.set(key, (bucket = []));
    else if (bucket.length >= BUCKET) {
      bucket.shift();
      this.entries--;
    }
    // A copy: the caller's buffer may be a view on memory that is reused.
    bucket.push({ bytes: Buffer.from(bytes), value });
    this.entries++;
  }

  clear(): void {
    this.buckets.clear();
    this.entries = 0;
  }

  get size(): number {
    return this.entries;
  }
}

/**
 * The length and up to SAMPLES bytes spread evenly over the buffer (the first always), mixed into 32
 * bits and kept to 30: a small integer V8 keeps unboxed, where a full 32-bit key was allocated as a
 * heap number and hashed as one on every lookup.
 */
function fingerprint(bytes: Buffer): number {
  const n = bytes.length;
  const step = n <= SAMPLES ? 1 : Math.floor(n / SAMPLES);
  let h = n | 0;
  for (let i = 0; i < n; i += step) h = Math.imul(h ^ bytes[i], 0x9e3779b1);
  // The last byte, which the stride may step over (where a body's end differs, its length often does too).
  if (n > 0) h = Math.imul(h ^ bytes[n - 1], 0x85ebca6b);
  return h >>> 2;
}
