import { errorFromEnvelope, errorFor } from './errors';
import { OPERATIONS, type OperationId } from './generated/operations';
import { readProgressive } from './progressive';
import type { BinaryResponse, CallOptions } from './types';

export interface ClientOptions {
  /** Where the gateway answers, e.g. `http://localhost:3000` (no trailing path). */
  baseUrl: string;
  /** An API key (`sk_…`) or `ADMIN_API_KEY`; sent as `Authorization: Bearer`. */
  apiKey?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
}

interface Call {
  path: Record<string, string>;
  body?: unknown;
  query?: Record<string, unknown>;
  options?: CallOptions;
}

/** HTTP for the generated operations: URLs, the key, bodies, and errors as GatewayError. */
export class Transport {
  readonly baseUrl: string;
  protected readonly apiKey?: string;
  protected readonly defaultHeaders: Record<string, string>;
  protected readonly fetchImpl: typeof fetch;

  constructor(options: ClientOptions) {
    if (!options?.baseUrl) throw new TypeError('baseUrl is required, e.g. http://localhost:3000');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.defaultHeaders = { ...options.headers };
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  protected url(template: string, path: Record<string, string>, query?: Record<string, unknown>): string {
    const p = template.replace(/\{(\w+)\}/g, (_, name: string) => {
      const v = path[name];
      if (v === undefined || v === null || v === '') throw new TypeError(`path parameter '${name}' is required`);
      return encodeURIComponent(String(v));
    });
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined || v === null) continue;
      for (const item of Array.isArray(v) ? v : [v]) qs.append(k, String(item));
    }
    const s = qs.toString();
    return `${this.baseUrl}${p}${s ? `?${s}` : ''}`;
  }

  protected headers(extra?: Record<string, string>): Headers {
    const h = new Headers(this.defaultHeaders);
    if (this.apiKey) h.set('authorization', `Bearer ${this.apiKey}`);
    for (const [k, v] of Object.entries(extra ?? {})) h.set(k, v);
    return h;
  }

  protected async send(id: OperationId, call: Call, accept?: string): Promise<Response> {
    const op: { method: string; path: string; body: string } = OPERATIONS[id];
    const headers = this.headers(call.options?.headers);
    if (accept && !headers.has('accept')) headers.set('accept', accept);
    let body: BodyInit | undefined;
    if (op.body === 'json' && call.body !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(call.body);
    } else if (op.body === 'bytes' && call.body !== undefined) {
      if (!headers.has('content-type')) headers.set('content-type', 'application/octet-stream');
      body = call.body as BodyInit;
    }
    const res = await this.fetchImpl(this.url(op.path, call.path, call.query), { method: op.method, headers, body, signal: call.options?.signal });
    if (res.status >= 400) throw await this.errorOf(res, op.method === 'HEAD');
    return res;
  }

  protected async errorOf(res: Response, noBody = false) {
    let parsed: unknown = null;
    if (!noBody) {
      const text = await res.text().catch(() => '');
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = null;
      }
    }
    return errorFromEnvelope(res.status, parsed, res.headers);
  }

  /** One request/answer operation; the answer is read by its declared kind (and its content type). */
  protected async call(id: OperationId, call: Call): Promise<unknown> {
    const op = OPERATIONS[id];
    const res = await this.send(id, call);
    if (op.response === 'head') return res.headers;
    if (res.status === 204 || op.response === 'empty') {
      await res.body?.cancel();
      return undefined;
    }
    const type = res.headers.get('content-type') ?? '';
    if (op.response === 'binary' || !type.includes('json')) {
      const result: BinaryResponse = { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()), contentType: type, headers: res.headers };
      return result;
    }
    return res.json();
  }

  /** Progressive generation: an async iterator over the SSE events of the answer. */
  protected stream(id: OperationId, call: Call): AsyncIterableIterator<unknown> {
    const controller = new AbortController();
    const outer = call.options?.signal;
    if (outer) outer.addEventListener('abort', () => controller.abort(outer.reason), { once: true });
    const response = this.send(id, { ...call, options: { ...call.options, signal: controller.signal } }, 'text/event-stream').then((res) => {
      if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        throw errorFor('INTERNAL_ERROR', `expected an event stream, got ${res.headers.get('content-type')}`, { status: res.status });
      }
      return res;
    });
    return readProgressive(response, controller);
  }
}
