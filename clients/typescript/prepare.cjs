// Builds the TypeScript client during `npm ci` / `npm install` (the root `prepare` script). An install
// without devDependencies has no TypeScript: it skips the build with a note instead of failing.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  console.warn('TypeScript client not built: typescript is not installed (devDependencies omitted)');
  process.exit(0);
}
const result = spawnSync(process.execPath, [tsc, '-p', path.join(__dirname, 'tsconfig.json')], { stdio: 'inherit' });
process.exit(result.status ?? 1);
