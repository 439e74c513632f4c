import { randomFillSync } from 'node:crypto';

/**
 * Fresh request ids: random (version 4) UUIDs, as `crypto.randomUUID` makes them, with their text
 * written 256 at a time.
 *
 * Every request without an id of its own gets one, and the id is the first header of its answer.
 * `randomUUID` joins its id from 20 short strings, which V8 keeps as a rope: node's header checks
 * then copied it flat on every answer, and its entropy came 128 ids per call into the system's
 * generator. Here one call draws 4 KiB of entropy for 256 ids, their text is written into one
 * buffer, and each id is read out of it as a flat string of its own (not a slice of a shared
 * string, which would keep all 256 alive as long as any one id is kept, by an SSE stream say).
 */
const BATCH = 256;
const UUID_LENGTH = 36;
const HEX = Buffer.from('0123456789abcdef', 'latin1');
const entropy = Buffer.alloc(16 * BATCH);
const text = Buffer.alloc(UUID_LENGTH * BATCH);
let next = BATCH;

function refill() {
  randomFillSync(entropy);
  let o = 0;
  for (let i = 0; i < BATCH; i++) {
    const r = i * 16;
    entropy[r + 6] = (entropy[r + 6] & 0x0f) | 0x40; // version 4
    entropy[r + 8] = (entropy[r + 8] & 0x3f) | 0x80; // RFC 9562 variant
    for (let j = 0; j < 16; j++) {
      if (j === 4 || j === 6 || j === 8 || j === 10) text[o++] = 0x2d; // '-'
      const b = entropy[r + j];
      text[o++] = HEX[b >> 4];
      text[o++] = HEX[b & 15];
    }
  }
  next = 0;
}

/** A new random UUID (version 4, lower-case), for a request that brought no id of its own. */
export function newRequestId(): string {
  if (next === BATCH) refill();
  const start = next++ * UUID_LENGTH;
  return text.toString('latin1', start, start + UUID_LENGTH);
}
