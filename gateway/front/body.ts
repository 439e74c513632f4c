import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { DomainError } from '../../domain/errors';
import { invalidJsonBody } from '../../transport/client-error';

/** The largest JSON body any API takes (REST and GraphQL alike). */
export const MAX_JSON_BODY = '1mb';
/** A small, plain JSON body is read here directly; anything else through express's JSON parser. */
const SMALL_BODY_BYTES = 64 * 1024;
// `application/json` itself, what nearly every client sends, is known without a regular expression.
const PLAIN_JSON = 'application/json';
const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;\s*charset=utf-8\s*)?$/i;
const isJsonType = (type: string | undefined) => type === PLAIN_JSON || (!!type && /^application\/(?:[\w.+-]+\+)?json\b/i.test(type));

/**
 * Where the front keeps a JSON body it has read: `bodyBytes` the bytes of a small body, `body` its
 * value (read it with `parsedBody`). The front keeps it on its own record of the request, not on
 * node's request object (index.ts, "One request's passage"), and hands express `req.body`.
 */
export interface ReadBody {
  body?: unknown;
  bodyBytes?: Buffer;
  /**
   * This module's own: set while `bodyBytes` are read but not yet parsed, to whether they must be an
   * object or an array. A field the record is made with (undefined), so setting it keeps the
   * record's shape.
   */
  unparsedStrict?: boolean;
}

/** Whether the request carries a body at all (a length above 0, or chunked). */
export function hasBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return (length !== undefined && length !== '0') || headers['transfer-encoding'] !== undefined;
}

/**
 * A Content-Length's value (NaN unless it is 1–9 decimal digits). By hand, not `Number`: node's
 * parser has already refused any other text, and `Number` of a string goes through V8's generic
 * conversion (~330 CPU instructions a request under callgrind, against ~30).
 */
function contentLengthOf(text: string | undefined): number {
  if (text === undefined || text.length === 0 || text.length > 9) return NaN;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return NaN;
    n = n * 10 + digit;
  }
  return n;
}

export function isJsonBody(headers: IncomingHttpHeaders): boolean {
  return isJsonType(headers['content-type']);
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
 * The request's JSON body, parsed from its bytes on first use; throws the catalogue's VALIDATION_ERROR
 * when it is not JSON. A small body is kept as bytes until something needs the value: an answer the
 * seam finds by the bytes alone (a repeated generation) never decodes or parses it.
 */
export function parsedBody(read: ReadBody): unknown {
  const strict = read.unparsedStrict;
  if (strict !== undefined) {
    read.body = parse(read.bodyBytes!.toString('utf8'), strict);
    read.unparsedStrict = undefined;
  }
  return read.body;
}

/** Whether a body was read into `read` (parsed or not). */
export const bodyWasRead = (read: ReadBody): boolean => read.bodyBytes !== undefined || 'body' in read;

/**
 * Reads a JSON request body once, for whichever framework answers, into `into`, then calls `done`
 * (with the error when it failed): a small body with a known length and no content encoding is read
 * straight from the socket into `into.bodyBytes` (the common case, and the one hot paths take), its
 * value parsed by `parsedBody` when first needed; anything else (chunked, compressed, another
 * charset, large) goes through express's own JSON parser into `into.body`. Errors are the
 * catalogue's: VALIDATION_ERROR (not JSON), PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE. A callback,
 * not a promise: the hit path makes no promise (index.ts, "One request's passage").
 */
export function readJsonBody(
  req: IncomingMessage,
  res: ServerResponse,
  headers: IncomingHttpHeaders,
  strict: boolean,
  into: ReadBody,
  done: (err?: unknown) => void,
): void {
  const length = contentLengthOf(headers['content-length']);
  if (
    length > 0 &&
    length <= SMALL_BODY_BYTES &&
    headers['content-encoding'] === undefined &&
    headers['transfer-encoding'] === undefined &&
    (headers['content-type'] === PLAIN_JSON || JSON_MEDIA_TYPE.test(headers['content-type'] ?? ''))
  ) {
    // Node's parser hands on exactly Content-Length bytes, so the body is whole when that many have
    // come: one 'data' listener, no 'end' listener (a stream listener costs about as much as the rest
    // of reading the body). A client that leaves before its body ends is not answered: IncomingMessage
    // emits no 'error' without a listener, so none is kept.
    let first: Buffer | undefined;
    let more: Buffer[] | undefined;
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      if (first === undefined) first = chunk;
      else (more ??= [first]).push(chunk);
      received += chunk.length;
      if (received < length) return;
      into.bodyBytes = more !== undefined ? Buffer.concat(more) : first;
      into.unparsedStrict = strict;
      done();
    });
    return;
  }
  const parsed = req as IncomingMessage & { body?: unknown };
  (strict ? strictParser : looseParser)(req as never, res as never, (err?: { type?: string; message?: string }) => {
    if (!err) {
      into.body = parsed.body;
      return done();
    }
    if (err.type === 'entity.too.large')
      return done(new DomainError('PAYLOAD_TOO_LARGE', `Request body exceeds ${MAX_JSON_BODY}`, { details: { limit: MAX_JSON_BODY } }));
    if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') return done(new DomainError('UNSUPPORTED_MEDIA_TYPE', String(err.message)));
    done(invalidJsonBody());
  });
}
