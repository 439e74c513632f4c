/**
 * The web console in a real browser: Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH) driven
 * by playwright-core against a started gateway. Not part of `npm test` (it needs the browser and a
 * built console): run it with `npm run test:browser`; CI runs it as its own step (.ci/run).
 */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  rootDir: __dirname,
  roots: ['<rootDir>/tests/browser'],
  testMatch: ['**/*.browser.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false, tsconfig: { isolatedModules: true, module: 'commonjs', moduleResolution: 'node10' } }],
  },
  setupFiles: ['reflect-metadata'],
  testTimeout: 60000,
  maxWorkers: 1,
};
