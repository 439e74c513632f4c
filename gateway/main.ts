import 'reflect-metadata';
import { ConfigError, parseConfig } from './config';
import { createGateway } from './server';
import { createLogger } from './logger';

async function main() {
  let config;
  try {
    config = parseConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(config.logLevel);
  const gateway = await createGateway(config, { logger: log });
  if (gateway.bootstrapAdminKey) {
    // Printed once, on the first start, straight to the terminal (never through the logger).
    process.stdout.write(
      `\nNo ADMIN_API_KEY was configured, so one was generated. It is shown only this once:\n\n  ${gateway.bootstrapAdminKey}\n\nKeep it safe; set ADMIN_API_KEY to use your own instead.\n\n`,
    );
  }
  process.stdout.write(`Gateway ready at ${gateway.url} (GraphQL ${gateway.url}/graphql, REST docs ${gateway.url}/api/docs)\n`);
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
  console.error('Gateway failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
