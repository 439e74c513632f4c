import fs from 'node:fs';
import path from 'node:path';

/**
 * The version of a package as it is resolved from here (its own package.json, found upwards from its
 * entry point), for the seams that are checked against the versions they were written for.
 */
export function resolvedPackageVersion(name: string): string {
  const main = require.resolve(name);
  for (let dir = path.dirname(main); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (!fs.existsSync(file)) continue;
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version: string };
    if (pkg.name === name) return pkg.version;
  }
  throw new Error(`${name}: package.json not found`);
}
