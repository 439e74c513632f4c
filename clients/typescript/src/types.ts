import type { operations } from './generated/openapi';

type Operations = operations;
export type OperationName = keyof Operations;

/** The JSON request body of an operation, as the OpenAPI document declares it. */
export type RequestBody<K extends OperationName> = Operations[K] extends { requestBody?: infer R }
  ? NonNullable<R> extends { content: { 'application/json': infer B } }
    ? B
    : never
  : never;

/** The query parameters of an operation. */
export type QueryOf<K extends OperationName> = Operations[K] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

type SuccessStatus = 200 | 201 | 202 | 206;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : R extends { content: { [type: string]: infer B } } ? B : unknown;

/**
 * The body of an operation's success answer. Operations whose answer the document does not yet
 * describe give `unknown` (never `never`), so a call still compiles and the caller narrows it.
 */
export type SuccessBody<K extends OperationName> = Operations[K] extends { responses: infer R }
  ? { [S in keyof R]: S extends SuccessStatus ? JsonOf<R[S]> : never }[keyof R] extends infer B
    ? [B] extends [never]
      ? unknown
      : B
    : unknown
  : unknown;

/** A binary answer (audio, a report file): its bytes and the headers that describe them. */
export interface BinaryResponse {
  status: number;
  bytes: Uint8Array;
  contentType: string;
  headers: Headers;
}

export interface CallOptions {
  /** Extra request headers (e.g. `Range`, `If-None-Match`). */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}
