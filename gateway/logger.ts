import pino from 'pino';

/**
 * Structured logs. Authorization headers, keys and secrets are redacted wherever they appear, so a
 * credential never reaches a log line.
 */
export function createLogger(level: string, destination?: pino.DestinationStream) {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'gateway' },
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.key', '*.secret', 'key', 'secret', 'authorization', '*.access_token'],
      censor: '[redacted]',
    },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  // A destination lets tests capture every line with the production redaction config.
  return destination ? pino(options, destination) : pino(options);
}

export type Logger = pino.Logger;
