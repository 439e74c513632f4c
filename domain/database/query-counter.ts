import { DefaultLogger, type LoggerOptions } from '@mikro-orm/core';

/**
 * Debug-only: counts the SQL statements MikroORM sends, for `npm run bench` (BENCH_COUNT_SQL=1).
 * MikroORM calls `logQuery` for every statement whether or not query logging is on, so wrapping it
 * costs one increment. The count is read over the IPC channel of a bench-started child process;
 * nothing is exposed to clients.
 */
let statements = 0;
/**
 * Wall time during which at least one transaction was open (from its `begin` to its `commit` or
 * `rollback` as the driver reports them). The embedded database runs one transaction at a time, so
 * there this is the time its single session was held by a transaction.
 */
let open = 0;
let openSince = 0;
let transactionMs = 0;

function noteTransaction(query: string) {
  const q = query.trim().toLowerCase();
  if (q === 'begin' || q.startsWith('begin ') || q.startsWith('start transaction')) {
    if (open++ === 0) openSince = performance.now();
  } else if ((q === 'commit' || q === 'rollback') && open > 0) {
    if (--open === 0) transactionMs += performance.now() - openSince;
  }
}

export const sqlCountingEnabled = () => process.env.BENCH_COUNT_SQL === '1';

/** Counts a statement sent past MikroORM's logger (prepared-reads.ts), when counting is on. */
export function countStatement(): void {
  if (sqlCountingEnabled()) statements++;
}

export function countingLoggerFactory(options: LoggerOptions) {
  const logger = DefaultLogger.create(options);
  const logQuery = logger.logQuery.bind(logger);
  logger.logQuery = (context) => {
    statements++;
    noteTransaction(String(context.query ?? ''));
    logQuery(context);
  };
  return logger;
}

/** Answers `{type: 'sql-count'}` messages from the parent process with the running totals. */
export function answerSqlCountOverIpc() {
  if (!process.send) return;
  process.on('message', (m: { type?: string } | undefined) => {
    if (m?.type === 'sql-count')
      process.send!({ type: 'sql-count', count: statements, transactionMs: transactionMs + (open > 0 ? performance.now() - openSince : 0) });
  });
  process.channel?.unref(); // never keeps the process alive by itself
}
