import fc from 'fast-check';
import { countText, createLimiters, WindowCounterStore } from '../../gateway/rate-limit';

/** The in-process TTS rate-limit store: a fixed window per client, answered synchronously. */
afterEach(() => jest.useRealTimers());

// The window is a fixed minute from the first hit; it must not care where a day, month or year
// turns over, so it runs across each of those edges.
test.each([
  ['2026-11-22T10:00:00Z', '2026-11-22T10:01:00Z', '2026-11-22T10:02:00Z'],
  ['2026-11-23T23:59:30Z', '2026-11-24T00:00:30Z', '2026-11-24T00:01:30Z'],
  ['2027-01-31T23:59:59Z', '2027-02-01T00:00:59Z', '2027-02-01T00:01:59Z'],
  ['2026-12-31T23:59:30Z', '2027-01-01T00:00:30Z', '2027-01-01T00:01:30Z'],
])('counts hits per key within a window, then starts a new window (first hit %s)', (start, firstReset, secondReset) => {
  jest.useFakeTimers({ now: new Date(start) });
  const store = new WindowCounterStore();
  store.init({ windowMs: 60_000 });
  const first = store.increment('a');
  expect(first.totalHits).toBe(1);
  expect(first.resetTime.getTime()).toBe(Date.parse(firstReset));
  expect(store.increment('a').totalHits).toBe(2);
  expect(store.increment('b').totalHits).toBe(1); // keys are independent
  store.decrement('a');
  expect(store.get('a')?.totalHits).toBe(1);

  jest.setSystemTime(new Date(Date.parse(firstReset) - 1)); // the last millisecond of the window
  expect(store.get('a')?.totalHits).toBe(1);
  jest.setSystemTime(new Date(firstReset)); // the window of 'a' has ended
  expect(store.get('a')).toBeUndefined();
  const next = store.increment('a');
  expect(next.totalHits).toBe(1);
  expect(next.resetTime.getTime()).toBe(Date.parse(secondReset));

  store.resetKey('a');
  expect(store.get('a')).toBeUndefined();
  store.resetAll();
  expect(store.get('b')).toBeUndefined();
  store.shutdown();
});

test('expired windows are swept, so idle clients do not accumulate', () => {
  jest.useFakeTimers({ now: new Date('2026-11-22T10:00:00Z') });
  const store = new WindowCounterStore();
  store.init({ windowMs: 1000 });
  for (let i = 0; i < 100; i++) store.increment(`client-${i}`);
  jest.advanceTimersByTime(2000);
  expect((store as any).clients.size).toBe(0);
  store.shutdown();
});

/** What the front's seam charges a tRPC call or GraphQL operation it answers: counted like `charge`, or not at all. */
test('tryCharge counts like charge, and when over the limit takes back every count it took; refund takes counts back', async () => {
  const { budgets, ttsCounter, planCounter } = createLimiters({ ttsPerMinute: 5 });
  const remaining = (headers: string[]) => Number(headers[headers.indexOf('RateLimit-Remaining') + 1]);
  const caller = { ip: '192.0.2.7' };
  expect(await budgets.tryCharge('tts', caller, 2)).toBe(true);
  expect(await budgets.tryCharge('tts', caller, 4)).toBe(false); // the 4th would be the 6th of 5: none of the 4 stays
  expect(remaining((await ttsCounter.hit(caller.ip)).headers)).toBe(2); // 2 + this one
  await budgets.refund('tts', caller, 1);
  expect(remaining((await ttsCounter.hit(caller.ip)).headers)).toBe(2);
  await expect(budgets.charge('tts', caller, 3)).rejects.toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });

  const key = { keyId: 'key_seam', plan: 'standard', isAdmin: false, permissions: new Set() } as any;
  const plan = { principal: key, ip: '192.0.2.8' };
  expect(await budgets.tryCharge('plan', plan, 3)).toBe(true);
  const left = Number((await planCounter.hit(plan)).headers[3]);
  expect(left).toBe(1000 - 4);
  expect(await budgets.tryCharge('plan', plan, left + 1)).toBe(false);
  expect(Number((await planCounter.hit(plan)).headers[3])).toBe(left - 1);
  await budgets.refund('plan', plan, 3);
  expect(Number((await planCounter.hit(plan)).headers[3])).toBe(left + 1);
  // A caller the plan does not limit is not counted.
  const enterprise = { principal: { ...key, keyId: 'key_big', plan: 'enterprise' }, ip: '192.0.2.9' };
  expect(await budgets.tryCharge('plan', enterprise, 5000)).toBe(true);
  expect((await planCounter.hit(enterprise)).headers).toEqual([]);
});

describe('countText: a count as header text', () => {
  it('writes the digits String writes, at every size and at the group edges', () => {
    const edges = [
      0,
      1,
      9,
      10,
      99,
      100,
      999,
      1000,
      1001,
      10_000,
      99_999,
      100_000,
      999_999,
      1_000_000,
      1_000_001,
      100_000_007,
      999_999_999,
      1e9,
      1e9 + 1,
      2 ** 53,
    ];
    for (const n of edges) expect(countText(n)).toBe(String(n));
    fc.assert(fc.property(fc.integer({ min: 0, max: 2_000_000_000 }), (n) => countText(n) === String(n)));
  });

  it('falls back to plain number text for anything but a non-negative integer', () => {
    for (const n of [-1, -1000, 1.5, 0.25, 1e21]) expect(countText(n)).toBe(String(n));
  });
});
