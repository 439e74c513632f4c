// Compiles the gateway during `npm ci` / `npm install` (the root `prepare` script), once, so that
// `npm start` runs the build at once instead of compiling at every start. An install without
// devDependencies has no TypeScript: it skips the build with a note instead of failing the install.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  console.warn('gateway not built: typescript is not installed (devDependencies omitted); run `npm run build` after a full install');
  process.exit(0);
}
const root = path.join(__dirname, '..');
const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
if (result.status !== 0) process.exit(result.status ?? 1);
require('./stamp-build.cjs');
