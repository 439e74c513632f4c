import fs from 'node:fs';
import path from 'node:path';

/**
 * `npm start` runs the build in dist/ and never compiles (`npm ci` builds it once, in `prepare`).
 * Running a build older than the source it came from would serve yesterday's code without a word, so
 * in a checkout (the sources beside dist/) start-up compares the build's stamp with the newest
 * source file and refuses a stale build with one clear line. A deployment without the sources has
 * nothing to compare and starts as it is.
 */

/** Written by `npm run build` once tsc has finished (scripts/stamp-build.cjs). */
export const BUILD_STAMP = '.build-stamp';
/** The folders tsconfig.build.json compiles. */
const SOURCE_DIRS = ['gateway', 'transport', 'domain', 'schema', 'resolvers', 'rest-adapter', 'trpc', 'migrations'];

export interface Staleness {
  /** A source file newer than the build, repo-relative. */
  newer: string;
}

function newestSource(dir: string, root: string, since: number): string | undefined {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules' || entry.name === 'generated') continue;
      const found = newestSource(full, root, since);
      if (found) return found;
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && fs.statSync(full).mtimeMs > since) {
      return path.relative(root, full);
    }
  }
  return undefined;
}

/**
 * Whether the build under `distDir` is older than a source file of the checkout at `root`; undefined
 * when it is current or there is nothing to compare (no sources, or no stamp: a build made some other way).
 */
export function staleBuild(root: string, distDir: string): Staleness | undefined {
  let stamped: number;
  try {
    stamped = fs.statSync(path.join(distDir, BUILD_STAMP)).mtimeMs;
  } catch {
    return undefined;
  }
  for (const dir of SOURCE_DIRS) {
    const newer = newestSource(path.join(root, dir), root, stamped);
    if (newer) return { newer };
  }
  return undefined;
}
