/**
 * How an idle instance spaces its looks for work (domain/jobs/idle-stretch.ts, the Poller), and the
 * hot value fast path of the size-bounded LRU the seam reads from.
 */
import { IdleStretch } from '../../domain/jobs/idle-stretch';
import { Poller } from '../../domain/jobs/poller';
import { SizeBoundedLru } from '../../domain/util/size-bounded-lru';

describe('IdleStretch', () => {
  test('doubles the wait with each empty look, up to 16x or 5 s, and is back at the base after work or a reset', () => {
    const idle = new IdleStretch();
    expect(idle.waitMs(300)).toBe(300);
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      idle.looked(false);
      waits.push(idle.waitMs(300));
    }
    expect(waits).toEqual([600, 1200, 2400, 4800, 4800, 4800]); // 16x
    expect(idle.waitMs(500)).toBe(5000); // 16x would be 8 s: 5 s at most
    idle.looked(true);
    expect(idle.waitMs(300)).toBe(300);
    for (let i = 0; i < 10; i++) idle.looked(false);
    expect(idle.waitMs(20)).toBe(320); // 16x a short interval
    expect(idle.waitMs(10_000)).toBe(10_000); // an interval longer than the cap is kept
    idle.reset();
    expect(idle.waitMs(20)).toBe(20);
  });
});

describe('Poller while idle', () => {
  test('looks less often while nothing is due, and claims at once when kicked', async () => {
    let claims = 0;
    let due: string[] = [];
    const ran: string[] = [];
    const poller = new Poller<string>({
      intervalMs: () => 10,
      concurrency: () => 1,
      claim: async () => {
        claims++;
        return due.shift() ?? null;
      },
      run: async (item) => void ran.push(item),
    });
    poller.start();
    await new Promise((r) => setTimeout(r, 600));
    // At a fixed 10 ms the poller would have looked ~60 times; stretched to 160 ms it looks about 8.
    expect(claims).toBeLessThan(20);
    due = ['work'];
    poller.kick();
    await new Promise((r) => setTimeout(r, 30));
    expect(ran).toEqual(['work']);
    await poller.stop();
  });

  test('kickAfter looks once the delay has passed, whatever the stretch', async () => {
    const due: string[] = [];
    const ran: string[] = [];
    const poller = new Poller<string>({
      intervalMs: () => 1000,
      concurrency: () => 1,
      claim: async () => due.shift() ?? null,
      run: async (item) => void ran.push(item),
    });
    poller.start();
    due.push('retry');
    poller.kickAfter(50);
    await new Promise((r) => setTimeout(r, 200));
    expect(ran).toEqual(['retry']);
    await poller.stop();
  });
});

describe('SizeBoundedLru', () => {
  const v = (size: number) => ({ size });

  test('evicts the least recently used, counting a value asked for twice in a row as most recent', () => {
    const lru = new SizeBoundedLru<{ size: number }>(400);
    lru.set('a', v(100));
    lru.set('b', v(100));
    lru.set('c', v(100));
    expect(lru.get('a')).toBeDefined();
    expect(lru.get('a')).toBeDefined(); // the fast path: already the newest
    lru.set('d', v(100));
    lru.set('e', v(100)); // over 400: the oldest, b, goes
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBeDefined();
    lru.delete('a');
    expect(lru.get('a')).toBeUndefined();
    lru.set('a', v(100));
    expect(lru.size).toEqual({ entries: 4, bytes: 400 });
  });
});
