/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false, tsconfig: { isolatedModules: true, module: 'commonjs', moduleResolution: 'node10' } }],
  },
  setupFiles: ['reflect-metadata'],
  testTimeout: 180000,
  maxWorkers: 2,
};
