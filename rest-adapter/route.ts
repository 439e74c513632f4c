import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { DomainContext } from '../domain/context';
import type { Services } from '../domain/services';

/** Which error body a path answers with (the two specs document three; the OpenAI-compatible paths answer OpenAI's). */
export type Envelope = 'tts' | 'integration' | 'dashboard' | 'openai';
export type Limiter = 'tts' | 'plan';
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head';

export interface RestCall {
  ctx: DomainContext;
  services: Services;
  body: unknown;
  query: Record<string, unknown>;
  params: Record<string, string>;
  req: Request;
  res: Response;
  /** Open streams (SSE), so shutdown can end each with an `error` event. */
  streams: StreamRegistry;
}

export interface StreamRegistry {
  /** Registers a stream's closer; returns the function that unregisters it. */
  add(close: (reason: string) => void): () => void;
}

export interface ResponseDoc {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
}

/**
 * One documented REST path bound to one domain operation (Hasura's RESTified endpoints, without
 * the GraphQL detour). The same entry drives routing, input documentation, the error envelope and
 * the generated OpenAPI document.
 */
export interface RouteSpec {
  method: HttpMethod;
  /** OpenAPI template, e.g. `/api/v1/audio/{hash}`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  envelope: Envelope;
  limiter: Limiter;
  /** The permission the domain operation demands (documentation; the domain enforces it). */
  permission?: string;
  /** `example`: a body that works as sent (shown by Swagger UI's Try it out). */
  request?: { body?: z.ZodType; query?: z.ZodType; example?: unknown };
  /** The JSON body of a successful answer (`rest-adapter/schemas/`); the contract clients generate from. */
  response?: z.ZodType;
  /** Media types a `raw` route answers with on success (audio, files, event streams). */
  produces?: string[];
  /** The schema of a raw route's `application/json` variant (a report downloaded as JSON). */
  producesJson?: z.ZodType;
  /** Status of a successful answer (default 200). */
  status?: number;
  responses?: Record<number, ResponseDoc>;
  /** Returns the JSON body; or, for `raw` routes, writes the response itself and returns undefined. */
  handle(call: RestCall): Promise<unknown> | unknown;
  raw?: boolean;
  /** The body is taken as raw bytes of any media type (a Buffer in `body`), up to `MAX_RAW_BODY`. */
  rawBody?: boolean;
  /** The media types a `rawBody` route documents for its body (default `application/octet-stream`). */
  consumes?: string[];
}

export const defineRoutes = (routes: RouteSpec[]) => routes;

/** A documented error answer (its body is the route's envelope). */
export const errorResponse = (description: string): ResponseDoc => ({ description });

/** Routes that share their envelope, limiter, tag or permission: each entry then names only what is its own. */
export function routesWith<D extends Partial<RouteSpec>>(shared: D): (r: Omit<RouteSpec, keyof D>) => RouteSpec {
  return (r) => ({ ...shared, ...r }) as RouteSpec;
}

/** A JSON answer with another status than the route's usual one (e.g. 202 for a queued request); declare it in `responses`. */
export class Answer {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}
