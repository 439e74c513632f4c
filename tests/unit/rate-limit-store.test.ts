import { WindowCounterStore } from '../../gateway/rate-limit';

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
