/**
 * The multi-instance suite: three built gateway processes on one PostgreSQL and one Redis.
 * Needs TEST_DATABASE_URL and TEST_REDIS_URL (it fails, loudly, without them) and is not part of
 * `npm test`: run it with `npx jest -c jest.multi.config.js`.
 */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  rootDir: __dirname,
  roots: ['<rootDir>/tests/multi'],
  testMatch: ['**/*.multi.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false, tsconfig: { isolatedModules: true, module: 'commonjs', moduleResolution: 'node10' } }],
  },
  globalSetup: '<rootDir>/tests/multi/global-setup.js',
  setupFiles: ['reflect-metadata'],
  testTimeout: 120000,
  maxWorkers: 1,
};
