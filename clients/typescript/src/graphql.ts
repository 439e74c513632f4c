import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
import { createClient, type Client as WsClient } from 'graphql-ws';
import { errorFor, GatewayError } from './errors';
import { reconnectDelayMs } from './reconnect';
import { webSocketClass } from './websocket';

/** A GraphQL document: a string, or a typed document (the generated ones in `documents`). */
// A plain string carries no result type; `any` as the default keeps `client.request('{ … }')` usable
// without a cast, as graphql-request and urql do. Typed documents infer their own TResult.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type GraphqlDocument<TResult = any, TVariables = Record<string, unknown>> =
  string | (DocumentTypeDecoration<TResult, TVariables> & { toString(): string });

export interface GraphqlErrorItem {
  message: string;
  path?: (string | number)[];
  extensions?: { code?: string; status?: number; [key: string]: unknown };
}

/** A GraphQL answer with errors, thrown as a GatewayError with the first error's `extensions.code`. */
export class GraphqlError extends GatewayError {
  override readonly name = 'GraphqlError';
  /** Every error of the answer. */
  errors: GraphqlErrorItem[] = [];
  /** Data that was resolved despite the errors. */
  data: unknown = null;
}

function toError(errors: readonly GraphqlErrorItem[], data: unknown, httpStatus?: number): GatewayError {
  const first = errors[0] ?? { message: 'GraphQL request failed' };
  const code = String(first.extensions?.code ?? (httpStatus && httpStatus >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_ERROR'));
  const base = errorFor(code, first.message, {
    status: first.extensions?.status ?? (httpStatus && httpStatus >= 400 ? httpStatus : undefined),
    details: (first.extensions ?? {}) as Record<string, unknown>,
  });
  const err = new GraphqlError(base.code, base.message, { status: base.status, details: base.details });
  err.errors = [...errors];
  err.data = data ?? null;
  return err;
}

/** Fatal graphql-ws close codes: a refused key or a bad request is not cured by reconnecting. */
const FATAL_CLOSE = new Set([4400, 4401, 4403, 4406, 4409, 4429]);

/** GraphQL over HTTP (queries, mutations) and graphql-ws (subscriptions, with reconnect). */
export class GraphqlClient {
  private ws: WsClient | null = null;

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string | undefined,
    private readonly fetchImpl: typeof fetch,
  ) {}

  /** A query or mutation over HTTP; errors throw a GraphqlError carrying `extensions.code`. */
  async request<TResult, TVariables>(
    document: GraphqlDocument<TResult, TVariables>,
    variables?: TVariables,
    options: { signal?: AbortSignal } = {},
  ): Promise<TResult> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    const res = await this.fetchImpl(`${this.baseUrl}/graphql`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query: String(document), variables: variables ?? {} }),
      signal: options.signal,
    });
    const body = (await res.json().catch(() => null)) as { data?: TResult; errors?: GraphqlErrorItem[] } | null;
    if (!body) throw errorFor(res.status >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_ERROR', `HTTP ${res.status} without a GraphQL answer`, { status: res.status });
    if (body.errors?.length) throw toError(body.errors, body.data, res.status);
    return body.data as TResult;
  }

  private socket(): WsClient {
    this.ws ??= createClient({
      url: `${this.baseUrl.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: webSocketClass(),
      connectionParams: this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {},
      lazy: true,
      retryAttempts: Number.MAX_SAFE_INTEGER,
      retryWait: (retries) => new Promise((resolve) => setTimeout(resolve, reconnectDelayMs(retries + 1))),
      shouldRetry: (event) => !(event && typeof event === 'object' && 'code' in event && FATAL_CLOSE.has((event as { code: number }).code)),
    });
    return this.ws;
  }

  /**
   * A subscription over graphql-ws as an async iterator of its results' `data`. The socket is shared
   * by all subscriptions of this client and re-opened (subscriptions re-sent) when it drops.
   */
  subscribe<TResult, TVariables>(document: GraphqlDocument<TResult, TVariables>, variables?: TVariables): AsyncIterableIterator<TResult> {
    const source = this.socket().iterate<TResult>({ query: String(document), variables: (variables ?? {}) as Record<string, unknown> });
    const iterator: AsyncIterableIterator<TResult> = {
      async next() {
        let r: IteratorResult<{ data?: TResult | null; errors?: readonly GraphqlErrorItem[] }>;
        try {
          r = (await source.next()) as typeof r;
        } catch (err) {
          if (Array.isArray(err)) throw toError(err as GraphqlErrorItem[], null);
          const code = (err as { code?: number })?.code;
          if (code === 4403 || code === 4401)
            throw errorFor(code === 4401 ? 'AUTHENTICATION_ERROR' : 'AUTHORIZATION_ERROR', `graphql-ws closed: ${(err as { reason?: string }).reason || code}`);
          throw err instanceof Error
            ? err
            : errorFor('SERVICE_UNAVAILABLE', `graphql-ws closed: ${(err as { reason?: string })?.reason ?? String(code ?? err)}`, { status: 503 });
        }
        if (r.done) return { value: undefined, done: true };
        if (r.value.errors?.length) {
          await source.return?.();
          throw toError(r.value.errors, r.value.data);
        }
        return { value: r.value.data as TResult, done: false };
      },
      async return() {
        await source.return?.();
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /** Closes the graphql-ws socket (ends every subscription). */
  async close(): Promise<void> {
    const ws = this.ws;
    this.ws = null;
    await ws?.dispose();
  }
}
