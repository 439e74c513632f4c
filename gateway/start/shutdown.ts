import type { Server } from 'node:http';
import type { Logger } from '../logger';

export type ShutdownStep = readonly [name: string, run: () => unknown];

/**
 * A stop function that runs the steps in order, once however often it is called. A failing step is
 * logged and the rest still run; each is logged at debug level with its duration, so a slow one can
 * be found.
 */
export function shutdownSequence(log: Logger, steps: readonly ShutdownStep[]): () => Promise<void> {
  let stopping: Promise<void> | null = null;
  return () =>
    (stopping ??= (async () => {
      log.info('gateway stopping');
      for (const [name, run] of steps) {
        const t = Date.now();
        try {
          await run();
        } catch (err) {
          log.warn({ err, step: name }, 'shutdown step failed');
        }
        log.debug({ step: name, ms: Date.now() - t }, 'shutdown step done');
      }
      log.info('gateway stopped');
    })());
}

/** How long answers in flight at shutdown may take before their connections are cut. */
export const DRAIN_GRACE_MS = 10_000;

/**
 * Stops the HTTP server gracefully: it takes no new connection, closes the idle keep-alive ones,
 * lets every answer in flight finish and closes each connection as it falls idle; after `graceMs`
 * it cuts whatever is left. Resolves once every connection is gone.
 *
 * Node closes only the connections idle at the moment it is asked (`closeIdleConnections`), so the
 * ones busy at close are asked again every 50 ms until they are gone. This replaces Apollo's drain
 * plugin, which does the same by counting every request's answer on its socket (a `request` and a
 * `finish` listener per request, for a shutdown that happens once).
 */
export function drainHttpServer(server: Server, graceMs = DRAIN_GRACE_MS): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const cut = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(cut);
      resolve();
    });
    server.closeIdleConnections();
  });
}
