// Runs a worker thread (audio, report rendering) from its TypeScript sources (under jest, where there is no compiled dist/):
// `.ts` files are transpiled on require, type-only, as ts-jest does. The output is cached by content
// under node_modules/.cache, so a new thread does not load the compiler again. A compiled gateway
// starts dist/domain/tts/audio/worker.js directly and never loads this file.
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { workerData } = require('node:worker_threads');

const cacheDir = path.join(__dirname, '..', '..', 'node_modules', '.cache', 'ts-worker');
let ts;

require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const cached = path.join(cacheDir, `${crypto.createHash('sha256').update(filename).update('\0').update(source).digest('hex')}.js`);
  let output;
  try {
    output = fs.readFileSync(cached, 'utf8');
  } catch {
    ts ??= require('typescript');
    output = ts.transpileModule(source, {
      fileName: filename,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, isolatedModules: true, sourceMap: false },
    }).outputText;
    fs.mkdirSync(cacheDir, { recursive: true });
    const tmp = `${cached}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    fs.writeFileSync(tmp, output);
    fs.renameSync(tmp, cached);
  }
  module._compile(output, filename);
};

require(workerData.entry);
