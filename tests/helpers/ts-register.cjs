'use strict';
/**
 * `node -r tests/helpers/ts-register.cjs gateway/main.ts`: runs the TypeScript sources in a process of
 * their own with no build step (transpiled on require, as ts-jest does with isolatedModules).
 */
const fs = require('node:fs');
const ts = require('typescript');

const compilerOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  esModuleInterop: true,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  useDefineForClassFields: false,
  isolatedModules: true,
  sourceMap: false,
};
require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  module._compile(ts.transpileModule(source, { compilerOptions, fileName: filename }).outputText, filename);
};
