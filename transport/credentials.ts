/** Where a caller's key can come from: `Authorization: Bearer <key>`, or `?access_token=` on a WebSocket upgrade. */
export function bearerFrom(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}

export function accessTokenOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  const q = url.indexOf('?');
  if (q < 0) return undefined;
  return new URLSearchParams(url.slice(q + 1)).get('access_token') ?? undefined;
}

/**
 * The key in connection parameters (graphql-ws `connectionParams`, tRPC's `connectionParams` query
 * parameter of a subscription): `authorization` as `Bearer <key>` or the bare key, or `access_token`.
 */
export function keyFromConnectionParams(params: unknown): string | undefined {
  if (!params || typeof params !== 'object') return undefined;
  const { authorization, access_token: accessToken } = params as Record<string, unknown>;
  if (typeof authorization === 'string' && authorization.trim()) return bearerFrom(authorization) ?? authorization.trim();
  if (typeof accessToken === 'string' && accessToken.trim()) return accessToken.trim();
  return undefined;
}
