import fs from 'node:fs';
import pino from 'pino';
import { secretRedactor } from '../domain/util/redact';

/** Fields of driver errors that carry statements or the values in them. */
const SQL_FIELDS = ['sql', 'query', 'params', 'parameters', 'bindings', 'detail', 'where', 'internalQuery'];
/** knex and MikroORM prefix the driver's message with the whole statement: `insert into … values (…) - <message>`. */
const STATEMENT_PREFIX = /\b(select|insert into|update|delete from|with|begin|commit|rollback|create|alter|drop|lock|copy)\b[\s\S]* - /i;

/**
 * An error as pino's serializer shows it, minus SQL: statements carry the request's values (texts,
 * tags, e-mail addresses), so a log line keeps the driver's reason and code but never the statement.
 */
/** A serialized error and its causes, whose text fields are scrubbed in place. */
type Scrubbable = Record<string, unknown> & { message?: unknown; stack?: unknown; cause?: unknown; previous?: unknown };

export function errWithoutSql(err: unknown): unknown {
  const serialized = pino.stdSerializers.err(err as Error) as unknown as Scrubbable;
  const scrub = (e: Scrubbable | undefined, depth: number) => {
    if (!e || typeof e !== 'object' || depth > 5) return;
    if (typeof e.message === 'string') e.message = e.message.replace(STATEMENT_PREFIX, '[statement omitted] - ');
    if (typeof e.stack === 'string') e.stack = e.stack.replace(STATEMENT_PREFIX, '[statement omitted] - ');
    for (const f of SQL_FIELDS) if (f in e) delete e[f];
    scrub(e.cause as Scrubbable | undefined, depth + 1);
    scrub(e.previous as Scrubbable | undefined, depth + 1);
  };
  scrub(serialized, 0);
  return serialized;
}

/**
 * Structured logs. Authorization headers, keys and secrets are redacted wherever they appear, so a
 * credential never reaches a log line; errors are logged without the SQL statements of driver errors.
 */
export function createLogger(level: string, destination?: pino.DestinationStream, secrets: string[] = []) {
  // Configured secrets (vendor keys, the admin key, database passwords) are also removed from the
  // finished line in any encoding, wherever a library or a vendor may have put them.
  const redactSecrets = secrets.length ? secretRedactor(secrets) : null;
  const options: pino.LoggerOptions = {
    ...(redactSecrets ? { hooks: { streamWrite: (line: string) => redactSecrets(line) } } : {}),
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

/**
 * A start-up line every operator must see whatever LOG_LEVEL says (where the gateway listens, the
 * generated admin key): one JSON line in the logger's own shape, written synchronously to stdout
 * (stderr for level error and above), so that every line the process prints is JSON.
 */
export function announce(level: 'info' | 'error' | 'fatal', fields: Record<string, unknown>, msg: string): void {
  const line = JSON.stringify({ level: pino.levels.values[level], time: new Date().toISOString(), service: 'gateway', ...fields, msg });
  fs.writeSync(level === 'info' ? 1 : 2, `${line}\n`);
}
