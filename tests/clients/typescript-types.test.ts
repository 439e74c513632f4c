/**
 * The TypeScript client's types come from the contract: a provider or framework outside the closed
 * sets is a compile error. Compiles clients/typescript/test-d/closed-sets.ts as written (every
 * `@ts-expect-error` line must fail, everything else must pass), then without the markers to show
 * which errors tsc reports.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const DIR = path.resolve(__dirname, '../../clients/typescript/test-d');
const FILE = path.join(DIR, 'closed-sets.ts');

function compile(text: string) {
  const { config } = ts.readConfigFile(path.join(DIR, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, DIR);
  const host = ts.createCompilerHost(parsed.options);
  const read = host.getSourceFile;
  host.getSourceFile = (name, lang, ...rest) => (path.resolve(name) === FILE ? ts.createSourceFile(name, text, lang) : read.call(host, name, lang, ...rest));
  const program = ts.createProgram([FILE], parsed.options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ({
    line: d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0,
    text: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  }));
}

it('accepts the valid calls and rejects each marked one', () => {
  const source = fs.readFileSync(FILE, 'utf8');
  expect(compile(source)).toEqual([]);

  const lines = source.split('\n');
  const marked = lines.flatMap((l, i) => (l.trim().startsWith('// @ts-expect-error') ? [i + 2] : []));
  expect(marked.length).toBe(8);
  const unmarked = lines.map((l) => (l.trim().startsWith('// @ts-expect-error') ? '' : l)).join('\n');
  const errors = compile(unmarked);
  expect([...new Set(errors.map((e) => e.line))].sort((a, b) => a - b)).toEqual(marked);
  const at = (n: number) =>
    errors
      .filter((e) => e.line === marked[n])
      .map((e) => e.text)
      .join('\n');
  const names = (text: string) => new Set([...text.matchAll(/"([a-z0-9_]+)"/g)].map((m) => m[1]));
  expect(at(0)).toMatch(/"provider_z".* is not assignable/s);
  expect([...names(at(0))]).toEqual(expect.arrayContaining(['provider_a', 'provider_b', 'provider_c', 'mock']));
  expect(at(1)).toMatch(/"hipaa".* is not assignable/s);
  expect([...names(at(1))]).toEqual(expect.arrayContaining(['iso13485', 'fda21cfr11', 'gdpr', 'soc2']));
  expect(at(2)).toMatch(/"hipaa"/);
  expect(at(3)).toMatch(/"hipaa"/);
  // GraphQL operations: the variables are unions of the schema's enum names.
  expect(at(6)).toMatch(/"HIPAA".* is not assignable to type 'FrameworkId\b/s);
  expect(at(7)).toMatch(/"provider_b".* is not assignable to type 'ProviderId\b.*Did you mean '"PROVIDER_B"'/s);
});
