// `npm run dev`: the TypeScript compiler in watch mode and the gateway restarted on every rebuild
// (node --watch on the compiled entry), so an edit is live a moment after it is saved.
const { spawn } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..');
const tsc = require.resolve('typescript/bin/tsc');
const children = [];
const run = (args, env = {}) => {
  const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  children.push(child);
  child.on('exit', (code) => stop(code ?? 0));
  return child;
};
const stop = (code) => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  process.exitCode = code;
};
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

// One full build first, so the gateway starts on current code; then both watch.
const first = spawn(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
first.on('exit', (code) => {
  if (code !== 0) process.exit(code ?? 1);
  require('./stamp-build.cjs');
  run([tsc, '-p', 'tsconfig.build.json', '--watch', '--preserveWatchOutput']);
  // The watcher rewrites dist/ as it compiles; the stamp is not needed (GATEWAY_SKIP_BUILD_CHECK).
  run(['--watch-path=dist', 'dist/gateway/main.js'], { GATEWAY_SKIP_BUILD_CHECK: '1', MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? '131072' });
});
