import pino from 'pino';

/** Fields of driver errors that carry statements or the values in them. */
const SQL_FIELDS = ['sql', 'query', 'params', 'parameters', 'bindings', 'detail', 'where', 'internalQuery'];
/** knex and MikroORM prefix the driver's message with the whole statement: `insert into … values (…) - <message>`. */
const STATEMENT_PREFIX = /\b(select|insert into|update|delete from|with|begin|commit|rollback|create|alter|drop|lock|copy)\b[\s\S]* - /i;

/**
 * An error as pino's serializer shows it, minus SQL: statements carry the request's values (texts,
 * tags, e-mail addresses), so a log line keeps the driver's reason and code but never the statement.
 */
export function errWithoutSql(err: unknown): unknown {
  const serialized: any = pino.stdSerializers.err(err as Error);
  const scrub = (e: any, depth: number) => {
    if (!e || typeof e !== 'object' || depth > 5) return;
    if (typeof e.message === 'string') e.message = e.message.replace(STATEMENT_PREFIX, '[statement omitted] - ');
    if (typeof e.stack === 'string') e.stack = e.stack.replace(STATEMENT_PREFIX, '[statement omitted] - ');
    for (const f of SQL_FIELDS) if (f in e) delete e[f];
    scrub(e.cause, depth + 1);
    scrub(e.previous, depth + 1);
  };
  scrub(serialized, 0);
  return serialized;
}

/**
 * Structured logs. Authorization headers, keys and secrets are redacted wherever they appear, so a
 * credential never reaches a log line; errors are logged without the SQL statements of driver errors.
 */
export function createLogger(level: string, destination?: pino.DestinationStream) {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'gateway' },
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.key', '*.secret', 'key', 'secret', 'authorization', '*.access_token'],
      censor: '[redacted]',
    },
    serializers: { err: errWithoutSql },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  // A destination lets tests capture every line with the production redaction config.
  return destination ? pino(options, destination) : pino(options);
}

export type Logger = pino.Logger;
