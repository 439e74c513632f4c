const { execFileSync } = require('node:child_process');
const path = require('node:path');

/** Refuses to run without the shared services, then builds dist/ so the processes run current code. */
module.exports = async function globalSetup() {
  const missing = ['TEST_DATABASE_URL', 'TEST_REDIS_URL'].filter((name) => !process.env[name]);
  if (missing.length) {
    throw new Error(
      `The multi-instance suite needs ${missing.join(' and ')} (e.g. TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test ` +
        'TEST_REDIS_URL=redis://127.0.0.1:6379). It starts three gateways on that PostgreSQL and Redis.',
    );
  }
  const root = path.resolve(__dirname, '../..');
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
};
