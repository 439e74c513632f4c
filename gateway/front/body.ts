import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { DomainError } from '../../domain/errors';
import { invalidJsonBody } from '../../transport/client-error';

/** The largest JSON body any API takes (REST and GraphQL alike). */
export const MAX_JSON_BODY = '1mb';
/** A small, plain JSON body is read here directly; anything else through express's JSON parser. */
const SMALL_BODY_BYTES = 64 * 1024;
const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;\s*charset=utf-8\s*)?$/i;
const isJsonType = (type: string | undefined) => !!type && /^application\/(?:[\w.+-]+\+)?json\b/i.test(type);

/** A request whose JSON body the front has read: `body` parsed, `bodyText` the text it was parsed from (small bodies). */
export interface ReadBody {
  body?: unknown;
  bodyText?: string;
}

/** Whether the request carries a body at all (a length above 0, or chunked). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

export function isJsonBody(req: IncomingMessage): boolean {
  return isJsonType(req.headers['content-type']);
}

/**
 * `strict`: only an object or an array at the top (GraphQL's requests); otherwise any JSON value
 * (REST's). An empty body is `{}`, a UTF-8 byte order mark is dropped, as express's parser does.
 */
function parse(text: string, strict: boolean): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.length === 0) return {};
  if (strict) {
    const first = /^[\x20\x09\x0a\x0d]*(.)/s.exec(body)?.[1];
    if (first !== '{' && first !== '[') throw invalidJsonBody();
  }
  try {
    return JSON.parse(body);
  } catch {
    throw invalidJsonBody();
  }
}

const looseParser = express.json({ limit: MAX_JSON_BODY, strict: false, type: () => true });
const strictParser = express.json({ limit: MAX_JSON_BODY, strict: true, type: () => true });

/**
 * Reads a JSON request body once, for whichever framework answers: sets `req.body` (and, for a small
 * plain body, `req.bodyText`). A small body with a known length and no content encoding is read
 * straight from the socket (the common case, and the one hot paths take); anything else (chunked,
 * compressed, another charset, large) goes through express's own JSON parser. Rejects with the
 * catalogue's error: VALIDATION_ERROR (not JSON), PAYLOAD_TOO_LARGE.
 */
export function readJsonBody(req: IncomingMessage & ReadBody, res: ServerResponse, strict: boolean): Promise<void> {
  const h = req.headers;
  const length = Number(h['content-length']);
  if (
    length > 0 &&
    length <= SMALL_BODY_BYTES &&
    h['content-encoding'] === undefined &&
    h['transfer-encoding'] === undefined &&
    JSON_MEDIA_TYPE.test(h['content-type'] ?? '')
  ) {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => void chunks.push(chunk));
      req.once('error', reject);
      // node:http delivers exactly Content-Length bytes, or an error when the client goes away.
      req.once('end', () => {
        const text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
        try {
          req.body = parse(text, strict);
          req.bodyText = text;
          resolve();
        } catch (err) {
          reject(err);
        }
      });
    });
  }
  return new Promise((resolve, reject) => {
    (strict ? strictParser : looseParser)(req as never, res as never, (err?: { type?: string; message?: string }) => {
      if (!err) return resolve();
      if (err.type === 'entity.too.large')
        return reject(new DomainError('PAYLOAD_TOO_LARGE', `Request body exceeds ${MAX_JSON_BODY}`, { details: { limit: MAX_JSON_BODY } }));
      if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported')
        return reject(new DomainError('UNSUPPORTED_MEDIA_TYPE', String(err.message)));
      reject(invalidJsonBody());
    });
  });
}

declare module 'node:http' {
  interface IncomingMessage {
    /** The JSON text a small body was parsed from (gateway/front/body.ts). */
    bodyText?: string;
  }
}
