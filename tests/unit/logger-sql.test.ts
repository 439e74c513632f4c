import { Writable } from 'node:stream';
import { createLogger, errWithoutSql } from '../../gateway/logger';

/** Driver errors reach the log with their reason and code, never with the statement and its values. */
test('a driver error is logged without its statement or values', () => {
  const driver: any = new Error(
    'insert into "audio_entries" ("hash", "original_text") values (\'abc\', \'secret text of a user\') - unsupported Unicode escape sequence',
  );
  driver.code = '22P05';
  driver.sql = 'insert into "audio_entries" ... values ($1, $2)';
  driver.params = ['abc', 'secret text of a user'];
  driver.detail = 'Key (email)=(someone@example.com) already exists.';
  const wrapped = new Error('request failed', { cause: driver });
  const lines: string[] = [];
  const log = createLogger('info', new Writable({ write: (c, _e, done) => (lines.push(c.toString()), done()) }));
  log.error({ err: driver }, 'failed');
  log.error({ err: wrapped }, 'failed');
  const text = lines.join('\n');
  expect(text).toContain('unsupported Unicode escape sequence');
  expect(text).toContain('22P05');
  expect(text).not.toMatch(/insert into|secret text|someone@example|values \(/i);
  expect((errWithoutSql(new Error('plain failure')) as any).message).toBe('plain failure');
});
