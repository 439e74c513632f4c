/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  // The soak (200 clients) and heavy work (health p99 during a large render) measure latency; beside
  // another test file on 2 cores they measure the neighbour, not the gateway. They run alone:
  // `npm run test:soak` (a step of .ci/run).
  testPathIgnorePatterns: ['/node_modules/', '/tests/faults/soak\\.test\\.ts$', '/tests/faults/heavy-work\\.test\\.ts$'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false, tsconfig: { isolatedModules: true, module: 'commonjs', moduleResolution: 'node10' } }],
  },
  setupFiles: ['reflect-metadata', '<rootDir>/tests/setup/process-clock.ts'],
  testTimeout: 180000,
  // A shifted clock (tests/setup/process-clock.ts) replaces the global Date; jest would otherwise
  // "clean up" that global between files and warn whenever a straggling timer reads it.
  ...(process.env.TEST_CLOCK_START ? { testEnvironmentOptions: { globalsCleanup: 'off' } } : {}),
  maxWorkers: 2,
};
