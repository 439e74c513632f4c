/**
 * Writes a migration for the difference between the entities and the migrations so far:
 * `npx ts-node`-free: run with `npm run build && node dist/scripts/create-migration.js [--initial]`.
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import 'reflect-metadata';
import { openDatabase } from '../domain/database/orm';

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-migrate-'));
  const db = await openDatabase({ dataDir: dir, databaseUrl: process.env.DATABASE_URL });
  const migrator = db.orm.getMigrator();
  const initial = process.argv.includes('--initial');
  const result = await migrator.createMigration(path.resolve(__dirname, '../../migrations'), false, initial);
  console.log(result.fileName || 'no changes', '\n', result.diff.up.join('\n'));
  await db.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
