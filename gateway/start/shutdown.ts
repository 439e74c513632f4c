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
