import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { embeddedServerScript, migrationsArgument } from './embedded';

/**
 * The embedded database's migrated template (embedded-postgres-server.cjs keeps it beside the plain
 * one): a cluster with every migration applied, made by `npm run build`, so that a first start copies
 * it and finds nothing to migrate. It is named by the fingerprint of the migrations that made it; a
 * build with other migrations names another one, and until it is made a first start migrates the
 * plain template as it always did. The migrations still run at every start, as on PostgreSQL: on a
 * copy of this template they find each one applied.
 */

/** Where the migration files are, from the sources or from the compiled `dist/`. */
const MIGRATIONS_DIR = path.join(__dirname, '..', '..', 'migrations');

let memo: string | null | undefined;

/**
 * The fingerprint of the migrations this build runs: their files (names and contents) and the
 * migrator's version (it keeps their record in a table of its own). Null when they cannot be read.
 */
export function migrationsFingerprint(dir = MIGRATIONS_DIR): string | null {
  if (dir === MIGRATIONS_DIR && memo !== undefined) return memo;
  let fingerprint: string | null;
  try {
    const hash = createHash('sha256');
    const migrator = JSON.parse(fs.readFileSync(require.resolve('@mikro-orm/migrations/package.json'), 'utf8')) as { version: string };
    hash.update(`@mikro-orm/migrations ${migrator.version}\n`);
    const files = fs
      .readdirSync(dir)
      .filter((f) => /\.(js|ts)$/.test(f) && !f.endsWith('.d.ts'))
      .sort();
    for (const file of files)
      hash
        .update(`${file}\n`)
        .update(fs.readFileSync(path.join(dir, file)))
        .update('\n');
    fingerprint = files.length > 0 ? hash.digest('hex').slice(0, 32) : null;
  } catch {
    fingerprint = null;
  }
  if (dir === MIGRATIONS_DIR) memo = fingerprint;
  return fingerprint;
}

function runServerScript(args: string[]) {
  return spawnSync(process.execPath, ['--liftoff-only', embeddedServerScript(), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Whether the migrated template for `fingerprint` is there. */
export function hasMigratedTemplate(fingerprint: string): boolean {
  return runServerScript(['--has-migrated', migrationsArgument(fingerprint)]).status === 0;
}

/** Keeps `clusterDir` (a migrated cluster, closed cleanly) as the migrated template for `fingerprint`. */
export function storeMigratedTemplate(fingerprint: string, clusterDir: string): void {
  const run = runServerScript(['--store-migrated', clusterDir, migrationsArgument(fingerprint)]);
  if (run.status !== 0) throw new Error(`the migrated template could not be kept: ${(run.stderr || run.error?.message || `exit ${run.status}`).trim()}`);
}
