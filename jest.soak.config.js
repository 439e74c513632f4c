/**
 * The suites that measure latency under load, each on its own: nothing else competes for the 2 cores.
 * The soak (200 clients) and heavy work (health p99 while a 10,000-requirement report renders).
 */
const base = require('./jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testPathIgnorePatterns: ['/node_modules/'],
  testMatch: ['**/tests/faults/soak.test.ts', '**/tests/faults/heavy-work.test.ts'],
  maxWorkers: 1,
};
