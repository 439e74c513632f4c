/**
 * The last step of `npm run build` (stamp-build.cjs): makes the embedded database's migrated template
 * for this build's migrations when there is none yet (domain/database/migrated-template.ts). The
 * migrations run as at a first start, through `openDatabase` on a fresh data directory, which is then
 * closed and kept. Nothing to do, the usual case, costs a check. A failure is a note, not a failed
 * build: a first start then migrates the plain template.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { embeddedDataDir } from '../domain/database/embedded';
import { hasMigratedTemplate, migrationsFingerprint, storeMigratedTemplate } from '../domain/database/migrated-template';
import { openDatabase } from '../domain/database/orm';

async function main() {
  const fingerprint = migrationsFingerprint();
  if (!fingerprint || hasMigratedTemplate(fingerprint)) return;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-migrated-template-'));
  try {
    const db = await openDatabase({ dataDir });
    await db.close();
    storeMigratedTemplate(fingerprint, embeddedDataDir(dataDir));
    console.log(`embedded database: migrated template made for these migrations (${fingerprint.slice(0, 12)})`);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.warn(`embedded database: no migrated template (a first start will run the migrations): ${(err as Error)?.message ?? err}`);
});
