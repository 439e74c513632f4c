// Builds the web console during `npm ci` / `npm install` (the root `prepare` script). An install
// without devDependencies (`--omit=dev`, NODE_ENV=production) has no Vite: it skips the build with a
// note instead of failing the install; the gateway then starts without the console.
import { fileURLToPath } from 'node:url';

let vite;
try {
  vite = await import('vite');
} catch {
  console.warn('web console not built: Vite is not installed (devDependencies omitted); run `npm run console:build` after a full install');
  process.exit(0);
}
await vite.build({ configFile: fileURLToPath(new URL('./vite.config.mts', import.meta.url)) });
