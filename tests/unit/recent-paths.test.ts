import fc from 'fast-check';
import { NOT_KEPT, RecentPaths } from '../../gateway/front/route-match';

describe('RecentPaths: values kept by path, found without hashing the path', () => {
  it('finds what was kept for exactly that path, and nothing for any other (a property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 40 }), { minLength: 1, maxLength: 300 }), fc.string({ maxLength: 40 }), (paths, other) => {
        const kept = new RecentPaths<number>();
        // A fresh string of the same text each time, as node's parser makes one per request.
        paths.forEach((p, i) => kept.set(p, i));
        const found = paths.map((p) => kept.get(`${p} `.slice(0, -1)));
        // Each path is found with its own value, or (its bucket full of later paths) not at all.
        for (let i = 0; i < paths.length; i++) expect([i, NOT_KEPT]).toContain(found[i]);
        if (!paths.includes(other)) expect(kept.get(other)).toBe(NOT_KEPT);
      }),
    );
  });

  it('keeps at most eight paths per bucket, the oldest going first, so colliding paths cost misses, not a long scan', () => {
    const kept = new RecentPaths<number>();
    // Same length, same characters at the places the bucket is chosen by: one bucket.
    const colliding = Array.from({ length: 12 }, (_, i) => `/api/v1/audio/${String.fromCharCode(65 + i)}xxxxxxxxxxxxxxxxxxxx`);
    const grew = colliding.map((p, i) => kept.set(p, i));
    expect(grew).toEqual([...Array(8).fill(true), ...Array(4).fill(false)]);
    expect(colliding.map((p) => kept.get(p))).toEqual([...Array(4).fill(NOT_KEPT), 4, 5, 6, 7, 8, 9, 10, 11]);
    kept.clear();
    expect(kept.get(colliding[11])).toBe(NOT_KEPT);
  });
});
