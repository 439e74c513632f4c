import { gzipSync } from 'node:zlib';

export interface ConsoleAsset {
  path: string;
  kind: 'js' | 'css';
  bytes: number;
  gzipBytes: number;
}

/**
 * What the browser downloads for the web console: the page at `/` and every script and style it
 * names, fetched from the running gateway and gzipped (zlib's default level, as a server or CDN
 * would send them). The budget is on the JavaScript: at most 300 KB gzipped.
 */
export async function measureConsole(gatewayUrl: string): Promise<{ assets: ConsoleAsset[]; jsGzipBytes: number; totalGzipBytes: number }> {
  const page = await fetch(`${gatewayUrl}/`);
  if (page.status !== 200) throw new Error(`GET / answered ${page.status}: is the console built (npm run console:build)?`);
  const html = await page.text();
  const paths = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
  if (!paths.some((p) => p.endsWith('.js'))) throw new Error('the console page names no script');
  const assets: ConsoleAsset[] = [];
  for (const path of [...new Set(paths)]) {
    const res = await fetch(`${gatewayUrl}${path}`);
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
    const body = Buffer.from(await res.arrayBuffer());
    assets.push({ path, kind: path.endsWith('.js') ? 'js' : 'css', bytes: body.length, gzipBytes: gzipSync(body).length });
  }
  const sum = (xs: ConsoleAsset[]) => xs.reduce((n, a) => n + a.gzipBytes, 0);
  return { assets, jsGzipBytes: sum(assets.filter((a) => a.kind === 'js')), totalGzipBytes: sum(assets) };
}
