'use strict';
/**
 * A gateway in a process of its own, for the SIGKILL test (tests/faults/report-sigkill.test.ts).
 * Loads the TypeScript sources directly (tests/helpers/ts-register.cjs: no build step), starts the real gateway from the environment (gateway/config.ts), then applies
 * two test-only settings: a short job lease (REPORT_TEST_LEASE_MS) so a dead worker's job is taken
 * over quickly, and a pause at the start of each report run (REPORT_TEST_RENDER_DELAY_MS) so the test
 * can kill the process while a report is being generated. Prints `report-run attempt=N` when a run
 * starts and `ready <url>` once listening.
 */
// The TypeScript sources, transpiled on require (the hook the other child-process gateways use).
require('../../helpers/ts-register.cjs');
require('reflect-metadata');
const path = require('node:path');
const root = path.resolve(__dirname, '../../..');
const { parseConfig } = require(path.join(root, 'gateway/config.ts'));
const { createGateway } = require(path.join(root, 'gateway/server.ts'));
const { createLogger } = require(path.join(root, 'gateway/logger.ts'));

async function main() {
  const config = parseConfig(process.env);
  const gateway = await createGateway(config, { logger: createLogger(config.logLevel) });
  const { jobs, reports } = gateway.services;
  jobs.opts.leaseMs = Number(process.env.REPORT_TEST_LEASE_MS || 2000);
  const delayMs = Number(process.env.REPORT_TEST_RENDER_DELAY_MS || 0);
  const generate = reports.generate.bind(reports);
  reports.generate = async (job) => {
    process.stdout.write(`report-run attempt=${job.attempt}\n`);
    await new Promise((r) => setTimeout(r, delayMs));
    return generate(job);
  };
  process.stdout.write(`ready ${gateway.url}\n`);
  process.on('SIGTERM', () => void gateway.stop().then(() => process.exit(0)));
}

main().catch((err) => {
  console.error('test gateway failed to start:', err);
  process.exit(1);
});
