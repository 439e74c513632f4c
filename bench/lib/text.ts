import { randomBytes } from 'node:crypto';

/** About `chars` characters of ordinary sentences, unique to this run so nothing comes from the cache. */
export function longText(chars: number): string {
  const tag = randomBytes(4).toString('hex');
  const sentences: string[] = [];
  let length = 0;
  for (let i = 0; length < chars; i++) {
    const s = `Sentence ${i} of run ${tag} describes the calibration of device number ${i % 37} in plain words.`;
    sentences.push(s);
    length += s.length + 1;
  }
  return sentences
    .join(' ')
    .slice(0, chars)
    .replace(/\s+\S*$/, '.');
}
