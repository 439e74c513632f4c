import fs from 'node:fs';
import path from 'node:path';

/**
 * The two products share infrastructure (domain/jobs, domain/webhooks, domain/events …) but never
 * import each other: speech works without the compliance platform and the other way round.
 */
const root = path.join(__dirname, '../../domain');

function importsOf(dir: string): { file: string; spec: string }[] {
  const out: { file: string; spec: string }[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const file = path.join(d, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (file.endsWith('.ts')) {
        for (const m of fs.readFileSync(file, 'utf8').matchAll(/(?:from|import\()\s*'([^']+)'/g)) {
          if (m[1].startsWith('.')) out.push({ file, spec: path.resolve(path.dirname(file), m[1]) });
        }
      }
    }
  };
  walk(dir);
  return out;
}

test.each([
  ['tts', 'compliance'],
  ['compliance', 'tts'],
  ['webhooks', 'compliance'],
  ['webhooks', 'tts'],
])('domain/%s does not import domain/%s', (from, to) => {
  const forbidden = path.join(root, to) + path.sep;
  const offenders = importsOf(path.join(root, from))
    .filter((i) => (i.spec + path.sep).startsWith(forbidden))
    .map((i) => `${path.relative(root, i.file)} -> ${path.relative(root, i.spec)}`);
  expect(offenders).toEqual([]);
});
