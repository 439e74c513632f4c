import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The web console, built by the root `npm ci` (the `prepare` script) into console/dist and served
 * by the gateway at `/` (gateway/console.ts). No dev server is needed to use it.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // One small bundle; the budget (300 KB gzipped) is checked by bench/console-size.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
