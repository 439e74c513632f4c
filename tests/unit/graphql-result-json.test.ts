import { GraphQLError, type ExecutionResult } from 'graphql';
import { forgetJson, forgetJsonAtTurnEnd, jsonSize, stringifyResult } from '../../gateway/graphql/parts/limits';

/** The HTTP answer reuses the text the size cap made; the characters are Apollo's own. */
describe('GraphQL result JSON written once', () => {
  const apollo = (value: object) => JSON.stringify(value) + '\n';
  const ordered = (r: { data?: unknown; errors?: unknown; extensions?: unknown }) => ({ errors: r.errors, data: r.data, extensions: r.extensions });

  it('answers the measured text for data alone, once, with the same characters Apollo writes', () => {
    const result = { data: { requirements: { data: [{ id: 'r1', title: 'é "quoted" \u2028', n: 1.5, none: null }] } } };
    const size = jsonSize(result);
    expect(size).toBe(JSON.stringify(result).length);
    // Apollo hands over a new object with the same data; its text is the measured one, not written again
    const stringify = jest.spyOn(JSON, 'stringify');
    const text = stringifyResult(ordered(result));
    expect(stringify).not.toHaveBeenCalled();
    stringify.mockRestore();
    expect(text).toBe(apollo(ordered(result)));
    // taken once: a second answer with the same data is written anew, still the same
    expect(stringifyResult(ordered(result))).toBe(apollo(ordered(result)));
  });

  it('writes results with errors or extensions, and kept answers, as Apollo does', () => {
    const withErrors = { data: { a: 1 }, errors: [new GraphQLError('no')] };
    jsonSize(withErrors);
    const formatted = { data: withErrors.data, errors: [{ message: 'no', extensions: { code: 'FORBIDDEN' } }] };
    expect(stringifyResult(ordered(formatted))).toBe(apollo(ordered(formatted)));

    const kept = { data: { b: [1, 2] } };
    jsonSize(kept);
    forgetJson(kept);
    const changed = { data: kept.data, extensions: { x: 1 } };
    expect(stringifyResult(ordered(changed))).toBe(apollo(ordered(changed)));
    expect(stringifyResult(ordered(kept))).toBe(apollo(ordered(kept)));
  });

  it('a kept answer’s text serves the answer of its own turn, then is dropped', async () => {
    const kept = { data: { d: [1, 2, 3] } };
    jsonSize(kept);
    forgetJsonAtTurnEnd(kept);
    const later = { data: { e: [4, 5] } };
    jsonSize(later);
    forgetJsonAtTurnEnd(later);
    const [keptText, laterText] = [apollo(ordered(kept)), apollo(ordered(later))];

    const stringify = jest.spyOn(JSON, 'stringify');
    expect(stringifyResult(ordered(kept))).toBe(keptText);
    expect(stringify).not.toHaveBeenCalled();
    await new Promise((r) => setImmediate(r));
    expect(stringifyResult(ordered(later))).toBe(laterText);
    expect(stringify).toHaveBeenCalledTimes(1);
    stringify.mockRestore();
  });

  it('does not reuse a text when the measured result had another key', () => {
    const odd = { data: { c: 1 }, hasNext: false };
    jsonSize(odd as ExecutionResult);
    expect(stringifyResult(ordered(odd))).toBe('{"data":{"c":1}}\n');
  });
});
