import { DefaultLogger, type LoggerOptions } from '@mikro-orm/core';

/**
 * Debug-only: counts the SQL statements MikroORM sends, for `npm run bench` (BENCH_COUNT_SQL=1).
 * MikroORM calls `logQuery` for every statement whether or not query logging is on, so wrapping it
 * costs one increment. The count is read over the IPC channel of a bench-started child process;
 * nothing is exposed to clients.
 */
let statements = 0;

export const sqlCountingEnabled = () => process.env.BENCH_COUNT_SQL === '1';

export function countingLoggerFactory(options: LoggerOptions) {
  const logger = DefaultLogger.create(options);
  const logQuery = logger.logQuery.bind(logger);
  logger.logQuery = (context) => {
    statements++;
    logQuery(context);
  };
  return logger;
}

/** Answers `{type: 'sql-count'}` messages from the parent process with the running total. */
export function answerSqlCountOverIpc() {
  if (!process.send) return;
  process.on('message', (m: any) => {
    if (m?.type === 'sql-count') process.send!({ type: 'sql-count', count: statements });
  });
  process.channel?.unref(); // never keeps the process alive by itself
}
