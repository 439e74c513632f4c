import { Writable } from 'node:stream';
import { createLogger } from '../../gateway/logger';
import { secretRedactor, REDACTED } from '../../domain/util/redact';
import { quotedForms } from '../helpers/secret-forms';

const SECRET = 'sk-Vendor/Key+0123456789=abcdefXYZ';

test.each(Object.entries(quotedForms(SECRET)))('a key quoted as %s is redacted', (_form, quoted) => {
  const redact = secretRedactor([SECRET, 'another-configured-secret']);
  const out = redact(`Invalid key "${quoted}" for this account`);
  expect(out).toContain(REDACTED);
  expect(out).not.toContain(quoted);
  expect(out.startsWith('Invalid key "')).toBe(true);
  expect(out.endsWith('" for this account')).toBe(true);
});

test('text without a secret is unchanged; short runs of a secret are kept', () => {
  const redact = secretRedactor([SECRET]);
  const text = 'The voice "alloy" is not available for model tts-1 (sk-Vend is not enough to match)';
  expect(redact(text)).toBe(text);
  expect(secretRedactor([])('anything')).toBe('anything');
});

test('adjacent forms become one marker', () => {
  const redact = secretRedactor([SECRET]);
  expect(redact(`${SECRET}${SECRET.toUpperCase()} done`)).toBe(`${REDACTED} done`);
});

test('the logger removes configured secrets, in any form, from every finished line', async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const log = createLogger('info', sink, [SECRET]);
  for (const [form, quoted] of Object.entries(quotedForms(SECRET))) log.info({ form, note: `library said: ${quoted}` }, `message with ${quoted}`);
  await new Promise((r) => setTimeout(r, 50));
  expect(lines).toHaveLength(Object.keys(quotedForms(SECRET)).length);
  for (const line of lines) expect(JSON.parse(line).msg).toContain(REDACTED);
  const text = lines.join('');
  for (const quoted of Object.values(quotedForms(SECRET))) expect(text).not.toContain(quoted);
});
