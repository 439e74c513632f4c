import fc from 'fast-check';
import { BytesMemo } from '../../domain/util/bytes-memo';

const body = (text: string) => Buffer.from(text, 'utf8');

describe('BytesMemo: values found again by identical bytes only', () => {
  it('finds a value by equal bytes in another buffer', () => {
    const memo = new BytesMemo<string>(10, 4096);
    memo.set(body('{"text":"hello"}'), 'a');
    expect(memo.get(body('{"text":"hello"}'))).toBe('a');
    expect(memo.get(body('{"text":"hellp"}'))).toBeUndefined();
  });

  it('tells apart bodies that differ only in bytes the fingerprint does not sample', () => {
    const memo = new BytesMemo<number>(100, 4096);
    // 900 bytes: the fingerprint samples every 28th byte, so these differ only between samples.
    const base = 'x'.repeat(900);
    const variants = [1, 2, 3, 5].map((at) => base.slice(0, at) + 'y' + base.slice(at + 1));
    variants.forEach((v, i) => memo.set(body(v), i));
    variants.forEach((v, i) => expect(memo.get(body(v))).toBe(i));
    expect(memo.get(body(base))).toBeUndefined();
  });

  it('keeps at most four colliding bodies, dropping the oldest', () => {
    const memo = new BytesMemo<number>(100, 4096);
    const base = 'x'.repeat(900);
    const colliding = [1, 2, 3, 5, 6, 7].map((at) => body(base.slice(0, at) + 'y' + base.slice(at + 1)));
    colliding.forEach((b, i) => memo.set(b, i));
    expect(memo.size).toBe(4);
    expect(memo.get(colliding[0])).toBeUndefined();
    expect(memo.get(colliding[1])).toBeUndefined();
    expect(memo.get(colliding[5])).toBe(5);
  });

  it('keeps nothing longer than its bound, and starts over when full', () => {
    const memo = new BytesMemo<number>(3, 10);
    memo.set(body('01234567890'), 1);
    expect(memo.get(body('01234567890'))).toBeUndefined();
    ['a', 'b', 'c'].forEach((k, i) => memo.set(body(k), i));
    expect(memo.size).toBe(3);
    memo.set(body('d'), 3);
    expect(memo.size).toBe(1);
    expect(memo.get(body('a'))).toBeUndefined();
    expect(memo.get(body('d'))).toBe(3);
  });

  it('keeps its own copy of the bytes', () => {
    const memo = new BytesMemo<number>(10, 4096);
    const reused = body('{"text":"one"}');
    memo.set(reused, 1);
    reused.write('{"text":"two"}');
    expect(memo.get(reused)).toBeUndefined();
    expect(memo.get(body('{"text":"one"}'))).toBe(1);
  });

  it('never answers for bytes other than those it was given (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 300 }), (a, b) => {
        const memo = new BytesMemo<string>(10, 4096);
        memo.set(Buffer.from(a), 'a');
        expect(memo.get(Buffer.from(a))).toBe('a');
        expect(memo.get(Buffer.from(b))).toBe(Buffer.from(a).equals(Buffer.from(b)) ? 'a' : undefined);
      }),
    );
  });
});
