import { ERROR_SENTENCES } from '../../console/src/error-sentences';
import { ERROR_CATALOGUE } from '../../domain/errors';

/** The console shows each API error code as a sentence: a code the catalogue gains must get one. */
describe("the console's error sentences", () => {
  test('every code of the error catalogue has a sentence', () => {
    const missing = Object.keys(ERROR_CATALOGUE).filter((code) => !ERROR_SENTENCES[code]);
    expect(missing).toEqual([]);
  });

  test('each is one sentence a person can read: capitalised, ending in a full stop, no code in it', () => {
    for (const [code, sentence] of Object.entries(ERROR_SENTENCES)) {
      expect({ code, ok: /^[A-Z].*\.$/.test(sentence) && !/[A-Z]{2,}_[A-Z]/.test(sentence) }).toEqual({ code, ok: true });
    }
  });
});
