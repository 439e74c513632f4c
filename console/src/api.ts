import { createClient, type Client } from 'graphql-ws/client';
import type { TypedDocumentString } from './generated/graphql';

/** An error as the API reported it: its catalogue code and message (and the HTTP status when known). */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status?: number,
    readonly fields?: { field: string; message: string }[],
  ) {
    super(message);
  }
}

const KEY_STORAGE = 'gateway-console.api-key';

/** The signed-in key lives in this tab's session storage only: closing the tab signs out. */
export const session = {
  key(): string | null {
    return sessionStorage.getItem(KEY_STORAGE);
  },
  set(key: string) {
    sessionStorage.setItem(KEY_STORAGE, key);
    resetLive();
  },
  clear() {
    sessionStorage.removeItem(KEY_STORAGE);
    resetLive();
  },
};

function authHeaders(key = session.key()): Record<string, string> {
  return key ? { authorization: `Bearer ${key}` } : {};
}

/** A GraphQL error as the gateway sends it (HTTP and WebSocket alike). */
type GraphqlErrorItem = { message?: string; extensions?: { code?: string; status?: number; fields?: unknown } };

function errorFromGraphql(errors: readonly GraphqlErrorItem[], status?: number): ApiError {
  const e = errors[0] ?? {};
  const ext = e.extensions ?? {};
  const fields = Array.isArray(ext.fields) ? (ext.fields as ConstructorParameters<typeof ApiError>[3]) : undefined;
  return new ApiError(String(ext.code ?? 'GRAPHQL_ERROR'), String(e.message ?? 'The request failed'), ext.status ?? status, fields);
}

/** One GraphQL operation over HTTP, typed by the document codegen made from console/src/graphql. */
export async function gql<R, V>(doc: TypedDocumentString<R, V>, variables?: V, key?: string): Promise<R> {
  let res: Response;
  try {
    res = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...authHeaders(key) },
      body: JSON.stringify({ query: doc.toString(), variables: variables ?? {} }),
    });
  } catch {
    throw new ApiError('NETWORK_ERROR', 'The gateway cannot be reached');
  }
  let body: { data?: unknown; errors?: GraphqlErrorItem[] };
  try {
    body = (await res.json()) as typeof body;
  } catch {
    throw new ApiError('INTERNAL_ERROR', `The gateway answered ${res.status} without a GraphQL body`, res.status);
  }
  if (body.errors?.length) throw errorFromGraphql(body.errors, res.status);
  if (!body.data) throw new ApiError('INTERNAL_ERROR', 'The gateway answered without data', res.status);
  return body.data as R;
}

/** Reads a REST error envelope (compliance `{error:{code,message}}` or TTS `{error, code}`). */
async function restError(res: Response): Promise<ApiError> {
  try {
    const body = (await res.json()) as { error?: unknown; code?: unknown; message?: unknown };
    const err = body.error as { code?: unknown; message?: unknown } | string | undefined;
    if (err && typeof err === 'object') return new ApiError(String(err.code ?? res.status), String(err.message ?? res.statusText), res.status);
    return new ApiError(String(body.code ?? res.status), String(err ?? body.message ?? res.statusText), res.status);
  } catch {
    return new ApiError(String(res.status), res.statusText || 'Request failed', res.status);
  }
}

/** A REST file (report download, audio) with the key, as a Blob. */
export async function fetchFile(path: string): Promise<Blob> {
  let res: Response;
  try {
    res = await fetch(path, { headers: authHeaders() });
  } catch {
    throw new ApiError('NETWORK_ERROR', 'The gateway cannot be reached');
  }
  if (!res.ok) throw await restError(res);
  return res.blob();
}

/** Saves a REST file under its server-given name (Content-Disposition) or a fallback. */
export async function download(path: string, fallbackName: string): Promise<void> {
  const res = await fetch(path, { headers: authHeaders() }).catch(() => {
    throw new ApiError('NETWORK_ERROR', 'The gateway cannot be reached');
  });
  if (!res.ok) throw await restError(res);
  const named = /filename="?([^";]+)"?/.exec(res.headers.get('content-disposition') ?? '')?.[1];
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = named ?? fallbackName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

// --- live: one graphql-ws connection per signed-in key, shared by every subscription ---

let live: Client | null = null;
type LiveState = 'connecting' | 'connected' | 'closed';
const liveListeners = new Set<(s: LiveState) => void>();
let liveState: LiveState = 'closed';
function setLiveState(s: LiveState) {
  liveState = s;
  for (const l of liveListeners) l(s);
}

export function onLiveState(listener: (s: LiveState) => void): () => void {
  liveListeners.add(listener);
  listener(liveState);
  return () => liveListeners.delete(listener);
}

function liveClient(): Client {
  if (live) return live;
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  live = createClient({
    url,
    lazy: true,
    retryAttempts: Infinity,
    shouldRetry: () => true,
    connectionParams: () => authHeaders(),
    on: {
      connecting: () => setLiveState('connecting'),
      connected: () => setLiveState('connected'),
      closed: () => setLiveState('closed'),
    },
  });
  return live;
}

function resetLive() {
  void live?.dispose();
  live = null;
  setLiveState('closed');
}

/** A GraphQL subscription; returns its cancel function. */
export function subscribe<R, V>(
  doc: TypedDocumentString<R, V>,
  variables: V,
  handlers: { next: (data: R) => void; error?: (err: ApiError) => void; complete?: () => void },
): () => void {
  return liveClient().subscribe<R>(
    { query: doc.toString(), variables: variables as Record<string, unknown> },
    {
      next: (msg) => {
        if (msg.errors?.length) handlers.error?.(errorFromGraphql(msg.errors as readonly GraphqlErrorItem[]));
        else if (msg.data) handlers.next(msg.data as R);
      },
      error: (err: unknown) => {
        if (Array.isArray(err)) handlers.error?.(errorFromGraphql(err as GraphqlErrorItem[]));
        else {
          const closed = err as { reason?: string; message?: string } | undefined;
          handlers.error?.(new ApiError('NETWORK_ERROR', closed?.reason || closed?.message || 'The live connection closed'));
        }
      },
      complete: () => handlers.complete?.(),
    },
  );
}
