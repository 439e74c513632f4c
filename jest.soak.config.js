/** The soak (tests/faults/soak.test.ts) on its own: nothing else competes for the 2 cores. */
const base = require('./jest.config.js');

/** @type {import('jest').Config} */
module.exports = { ...base, testPathIgnorePatterns: ['/node_modules/'], testMatch: ['**/tests/faults/soak.test.ts'], maxWorkers: 1 };
