import { newRequestId } from '../../transport/request-id';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newRequestId: random version 4 UUIDs made in batches', () => {
  it('makes well-formed, distinct ids across many batches', () => {
    // 2,000 ids span many batches, so batch boundaries and refills are crossed.
    const ids = Array.from({ length: 2000 }, newRequestId);
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draws fresh entropy for every batch (no batch repeats an earlier one)', () => {
    const first = Array.from({ length: 256 }, newRequestId);
    const second = Array.from({ length: 256 }, newRequestId);
    const seen = new Set(first);
    expect(second.some((id) => seen.has(id))).toBe(false);
    // Every hex digit outside the fixed version and variant positions takes many values.
    const digits = new Set(second.map((id) => id[0]));
    expect(digits.size).toBeGreaterThan(10);
  });
});
