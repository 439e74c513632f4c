import 'reflect-metadata';
import path from 'node:path';
import v8 from 'node:v8';
import { ConfigError, configuredSecrets, parseConfig } from './config';
import { announce, createLogger } from './logger';
import { embeddedDataDir } from '../domain/database/embedded';
import { EmbeddedSupervisor } from '../domain/database/embedded-supervisor';
import { staleBuild } from './build-freshness';

/**
 * Old-generation growth: V8 lets the old space grow to up to 4× the live heap before its next full
 * collection on a machine with plenty of memory. Live subscriptions turn over short-lived objects that
 * outlive young collections (each tRPC SSE stream parks a chain of web-stream promises per event),
 * so the old space fills with garbage up to that limit: 1000 subscribers × 100 events peaked at
 * 430–460 MB RSS on a live heap of ~90 MB. At 1.5× the peak was 228–235 MB (2×: 270–280 MB), for
 * ~10 more full GCs per 100 events (≈ +150 ms of main-thread pauses, ~14 ms each). The value is read
 * at every collection, so setting it here works; an explicit command-line setting wins.
 */
const HEAP_GROWING_PERCENT = 50;
if (![...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) => a.includes('heap-growing-percent'))) {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/** dist/gateway/main.js → the checkout's root and its dist/. */
const DIST_DIR = path.resolve(__dirname, '..');
const ROOT_DIR = path.resolve(DIST_DIR, '..');

async function main() {
  if (!process.env.GATEWAY_SKIP_BUILD_CHECK && path.basename(DIST_DIR) === 'dist') {
    const stale = staleBuild(ROOT_DIR, DIST_DIR);
    if (stale) {
      announce(
        'fatal',
        { event: 'stale-build', newer: stale.newer },
        `The build in dist/ is older than ${stale.newer}: run \`npm run build\` (or \`npm run dev\` to rebuild on every change), then start again.`,
      );
      process.exit(2);
    }
  }
  let config;
  try {
    config = parseConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      announce('fatal', { event: 'config-error' }, err.message);
      process.exit(2);
    }
    throw err;
  }
  // The embedded database boots in its own process while this one loads the gateway's modules
  // (about a second each on a small machine): start it first, load the rest after.
  const embeddedDatabase = config.databaseUrl
    ? undefined
    : EmbeddedSupervisor.start(embeddedDataDir(config.dataDir), { giveUpAfterMs: config.embeddedRestartMs });
  embeddedDatabase?.catch(() => undefined); // reported by createGateway, which awaits it

  const { createGateway } = require('./server') as typeof import('./server');
  const log = createLogger(config.logLevel, undefined, configuredSecrets(config));
  let running: { stop(): Promise<void> } | undefined;
  const gateway = await createGateway(config, {
    logger: log,
    embeddedDatabase,
    // The embedded database could not be brought back: exit non-zero so the process supervisor restarts the whole gateway.
    onDatabaseLost: (err) => {
      announce('fatal', { event: 'database-lost' }, `${err.message}; exiting`);
      const force = setTimeout(() => process.exit(1), 5_000);
      force.unref();
      void (running?.stop() ?? Promise.resolve()).finally(() => process.exit(1));
    },
  });
  running = gateway;
  if (gateway.bootstrapAdminKey) {
    // Printed once, on the first start, whatever LOG_LEVEL says; not through the logger, whose
    // redaction would hide it. Read it with: jq -r 'select(.adminApiKey) | .adminApiKey'
    announce(
      'info',
      { event: 'bootstrap-admin-key', adminApiKey: gateway.bootstrapAdminKey },
      'No ADMIN_API_KEY was configured, so one was generated (adminApiKey). It is shown only this once: keep it safe; set ADMIN_API_KEY to use your own instead.',
    );
  }
  announce(
    'info',
    { event: 'ready', url: gateway.url, console: `${gateway.url}/`, graphql: `${gateway.url}/graphql`, restDocs: `${gateway.url}/api/docs` },
    `Gateway ready at ${gateway.url} (web console ${gateway.url}/, GraphQL ${gateway.url}/graphql, REST docs ${gateway.url}/api/docs)`,
  );
  let signalled = false;
  const shutdown = (signal: string) => {
    if (signalled) return;
    signalled = true;
    log.info({ signal }, 'shutdown requested');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    gateway.stop().then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err) => {
  announce('fatal', { event: 'start-failed' }, `Gateway failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
