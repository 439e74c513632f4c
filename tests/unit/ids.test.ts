import { newId } from '../../domain/ids';

/** Ids: a prefix, a time part that sorts, 16 random hex digits; never the same twice. */
test('ids carry their prefix, sort by time, and do not repeat across many pool refills', () => {
  const ids = Array.from({ length: 5000 }, () => newId('req')); // 5,000 × 8 bytes: ten refills of the 4 KiB pool
  for (const id of ids) expect(id).toMatch(/^req_[0-9a-z]{9}[0-9a-f]{16}$/);
  expect(new Set(ids).size).toBe(ids.length);
  const randomParts = ids.map((id) => id.slice(-16));
  expect(new Set(randomParts).size).toBe(ids.length);
  const times = ids.map((id) => id.slice(4, 13));
  expect([...times].sort()).toEqual(times);
});
