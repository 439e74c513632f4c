import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from 'cors';

/**
 * The headers every API answer carries, in one place: the front sets them on every response, those
 * the frameworks (express, tRPC, Apollo) then complete and those the front's seam sends itself.
 *
 * Security (OWASP REST Security Cheat Sheet): no framing, no sniffing, HSTS, no referrer, a CSP that
 * loads nothing, and the body may be read cross-origin by scripts CORS admits. Headers that only mean
 * something to an HTML document ride on the HTML pages alone (the docs page, the console): on every
 * API answer they were 1.2 KB, a third of a cached answer's cost (docs/decisions.md).
 */
const API_SECURITY_HEADERS: readonly string[] = [
  'Content-Security-Policy',
  "default-src 'none';frame-ancestors 'none'",
  'Cross-Origin-Resource-Policy',
  'cross-origin',
  'Referrer-Policy',
  'no-referrer',
  'Strict-Transport-Security',
  'max-age=31536000; includeSubDomains',
  'X-Content-Type-Options',
  'nosniff',
  'X-Frame-Options',
  'DENY',
];

/** Response headers a cross-origin script may read. */
export const EXPOSED_HEADERS = [
  'X-Request-Id',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'ETag',
  'Content-Range',
  'X-Provider',
  'X-Cached-Tier',
  'RateLimit-Policy',
  'RateLimit-Characters-Limit',
  'RateLimit-Characters-Remaining',
  'RateLimit-Characters-Reset',
  'X-Audio-Hash',
  'X-Cache',
];

export interface HeaderPolicy {
  /**
   * Every header of the policy for a request without `Origin` (no CORS decision to make), as flat
   * name/value pairs: what the seam writes with `writeHead`, and what `apply` sets.
   */
  readonly plainPairs: readonly string[];
  /**
   * Sets the policy's headers on a response. A request with `Origin` gets its CORS headers from the
   * `cors` package (allowed origins, credentials); a preflight (`OPTIONS`) is answered here (true:
   * nothing more to do).
   */
  apply(req: IncomingMessage, res: ServerResponse): boolean;
}

/**
 * `origins`: the allowed origins (`CORS_ORIGINS`); unset, every origin in development and none in
 * production.
 */
export function createHeaderPolicy(opts: { origins?: string[]; production: boolean }): HeaderPolicy {
  const origin = opts.origins ?? (opts.production ? false : true);
  const corsHeaders = cors({ origin, exposedHeaders: EXPOSED_HEADERS });
  // Without Origin nothing is decided, but the answer still varies with Origin (a shared cache must
  // keep the cross-origin answer apart) and names what scripts may read.
  const cross = origin === false ? [] : ['Vary', 'Origin', 'Access-Control-Expose-Headers', EXPOSED_HEADERS.join(',')];
  const plainPairs = [...API_SECURITY_HEADERS, ...cross];
  return {
    plainPairs,
    apply(req, res) {
      for (let i = 0; i < API_SECURITY_HEADERS.length; i += 2) res.setHeader(API_SECURITY_HEADERS[i], API_SECURITY_HEADERS[i + 1]);
      if (req.headers.origin === undefined && req.method !== 'OPTIONS') {
        for (let i = 0; i < cross.length; i += 2) res.setHeader(cross[i], cross[i + 1]);
        return false;
      }
      // The cors package answers a preflight itself (204) and never calls next; otherwise it calls it at once.
      let passed = false;
      corsHeaders(req as never, res as never, () => {
        passed = true;
      });
      return !passed;
    },
  };
}
