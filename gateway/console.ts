import fs from 'node:fs';
import path from 'node:path';
import express, { type Express, type RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * The web console (console/, built by `npm ci` into console/dist): one HTML page at `/` and its
 * hashed assets under `/assets/`. Navigation inside the console uses the URL fragment, so every
 * other path keeps its JSON 404.
 */
export function findConsoleDir(from = __dirname): string | null {
  // gateway/ under ts-jest, dist/gateway/ when built: look upwards for the repository's console/dist.
  for (let dir = from, i = 0; i < 4; i++, dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'console', 'dist');
    if (fs.existsSync(path.join(candidate, 'index.html'))) return candidate;
  }
  return null;
}

/** The console's own document policy: its scripts, styles, media and its own origin's HTTP and WebSocket. */
export const consoleHeaders: RequestHandler = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      'default-src': ["'self'"],
      'script-src': ["'self'"],
      'style-src': ["'self'"],
      'img-src': ["'self'", 'data:', 'blob:'],
      'media-src': ["'self'", 'blob:'],
      // 'self' covers ws:/wss: to the same host (CSP Level 3), which graphql-ws uses.
      'connect-src': ["'self'"],
      'object-src': ["'none'"],
      'base-uri': ["'self'"],
      'form-action': ["'self'"],
      'frame-ancestors': ["'none'"],
    },
  },
  crossOriginResourcePolicy: { policy: 'same-origin' },
  xFrameOptions: { action: 'deny' },
});

/** Mounts the console when it was built; answers whether it was. */
export function mountConsole(app: Express, dir = findConsoleDir()): boolean {
  if (!dir) return false;
  const index = fs.readFileSync(path.join(dir, 'index.html'));
  app.get(['/', '/index.html'], consoleHeaders, (_req, res) => {
    res.set('Cache-Control', 'no-cache').type('html').send(index);
  });
  // File names carry a content hash: cache them for good.
  app.use('/assets', consoleHeaders, express.static(path.join(dir, 'assets'), { index: false, immutable: true, maxAge: '365d', fallthrough: true }));
  return true;
}
