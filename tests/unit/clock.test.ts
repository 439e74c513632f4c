import fs from 'node:fs';
import path from 'node:path';
import { clock, clockStartingAt, systemClock } from '../../domain/clock';

test('a clock started at an instant reads that instant, then advances in real time', async () => {
  const c = clockStartingAt('2026-12-31T23:59:59.900Z');
  expect(Math.abs(c.nowMs() - Date.parse('2026-12-31T23:59:59.900Z'))).toBeLessThan(50);
  await new Promise((r) => setTimeout(r, 150));
  expect(new Date(c.nowMs()).getUTCFullYear()).toBe(2027);
  expect(() => clockStartingAt('not a time')).toThrow(/not a time/);
});

test('clock.use swaps the process clock and puts the previous one back', () => {
  const restore = clock.use(clockStartingAt('2028-02-29T12:00:00Z'));
  expect(clock.now().toISOString().slice(0, 10)).toBe('2028-02-29');
  const inner = clock.use({ nowMs: () => 0 });
  expect(clock.now().toISOString()).toBe('1970-01-01T00:00:00.000Z');
  inner();
  expect(clock.now().toISOString().slice(0, 10)).toBe('2028-02-29');
  restore();
  expect(Math.abs(clock.nowMs() - systemClock.nowMs())).toBeLessThan(50);
});

// The calendar tests can only choose the instant if every rule asks this one clock.
test('the domain reads the time only through domain/clock.ts', () => {
  const root = path.join(__dirname, '../../domain');
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (file.endsWith('.ts') && !file.endsWith(`${path.sep}clock.ts`)) {
        fs.readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (/\bDate\.now\(\)|\bnew Date\(\)|(?<![.\w])now\(\)\s*[-+<>]|[<>=]\s*now\(\)/.test(line))
              offenders.push(`${path.relative(root, file)}:${i + 1}: ${line.trim()}`);
          });
      }
    }
  };
  walk(root);
  expect(offenders).toEqual([]);
});
