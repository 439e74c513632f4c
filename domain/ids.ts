import { randomBytes } from 'node:crypto';
import { clock } from './clock';

/**
 * Prefixed, time-sortable identifiers (`req_0m3k9x…`): the prefix tells a support engineer what an id
 * names, and the time part keeps inserts index-friendly and listings stable.
 */
export function newId(prefix: string): string {
  const time = clock.nowMs().toString(36).padStart(9, '0');
  const rand = randomBytes(8).toString('hex');
  return `${prefix}_${time}${rand}`;
}
