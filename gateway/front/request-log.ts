import type { IncomingMessage } from 'node:http';
// Imported, not the global: the global `performance` is a lazy getter node checks on every read.
import { performance } from 'node:perf_hooks';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';

/**
 * Paths whose lines are noise at the default level: probes (a balancer asks every few seconds),
 * static files of the console and docs, and the metrics scrape. They are logged at debug.
 */
const QUIET = /^\/(?:api\/v1\/health|health|metrics$|assets\/|api\/docs\/assets\/|graphql\/ide\/|favicon\.ico$|index\.html$|$)/;

/**
 * What every request leaves behind once answered, whoever answered it: one access-log line (method,
 * route template, status, duration, request id, key id — never the key) and the HTTP metrics. The
 * route is a template (`/v1/requirements/{id}`, `/graphql:<operation>`, `/trpc:<procedure>`), so
 * neither the log's nor the metrics' vocabulary grows with what clients send.
 */
export function createRequestLog(metrics: Metrics, log: Logger) {
  // The level as a number, kept up to date by pino's 'level-change' event: `isLevelEnabled` looked it
  // up through the logger's symbol-keyed fields twice on every answer.
  const { info: INFO, debug: DEBUG } = log.levels.values;
  let level = log.levelVal;
  log.on('level-change', () => {
    level = log.levelVal;
  });
  const logsInfo = () => level <= INFO;
  const logsDebug = () => level <= DEBUG;

  return function requestFinished(
    req: IncomingMessage,
    path: string,
    route: string,
    status: number,
    requestId: string,
    keyId: string | undefined,
    /** When the request came, by `performance.now()`. */
    startedMs: number,
  ): void {
    const method = req.method ?? 'GET';
    const seconds = (performance.now() - startedMs) / 1000;
    metrics.countRequest(route, method, status);
    metrics.httpDuration.observe(route, method, seconds);
    if (!logsDebug()) {
      if (!logsInfo() || QUIET.test(path)) return;
      log.info({ requestId, method, route, status, ms: Math.round(seconds * 10_000) / 10, keyId }, 'request');
      return;
    }
    const line = { requestId, method, route, status, ms: Math.round(seconds * 10_000) / 10, keyId };
    if (QUIET.test(path)) log.debug(line, 'request');
    else log.info(line, 'request');
  };
}

export type RequestFinished = ReturnType<typeof createRequestLog>;
