import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { embeddedDataDir } from '../../domain/database/embedded';
import { EmbeddedSupervisor } from '../../domain/database/embedded-supervisor';
import { hasMigratedTemplate, migrationsFingerprint, storeMigratedTemplate } from '../../domain/database/migrated-template';
import { openDatabase, type Database } from '../../domain/database/orm';

/**
 * The embedded database's migrated template (domain/database/migrated-template.ts): a data directory
 * copied from it holds what the migrations make, and a start on it has nothing left to migrate. Made
 * here under a fingerprint of the test's own, removed after.
 */
const fingerprint = randomBytes(16).toString('hex');
const dirs: string[] = [];
const freshDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrated-template-'));
  dirs.push(dir);
  return dir;
};

afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  const cache = path.join(__dirname, '..', '..', 'node_modules', '.cache', 'speech-gateway');
  for (const name of fs.existsSync(cache) ? fs.readdirSync(cache) : []) {
    if (name.includes(fingerprint)) fs.rmSync(path.join(cache, name), { recursive: true, force: true });
  }
});

/** What the migrations made: every column, index and recorded migration (with when it ran). */
async function schemaOf(db: Database) {
  const sql = <T>(text: string) => db.orm.em.getConnection().execute<T[]>(text);
  return {
    columns: await sql<object>(
      `select table_name, column_name, data_type, is_nullable, column_default from information_schema.columns where table_schema = 'public' order by 1, 2`,
    ),
    indexes: await sql<object>(`select tablename, indexname, indexdef from pg_indexes where schemaname = 'public' order by 1, 2`),
    functions: await sql<object>(`select proname, prosrc from pg_proc join pg_namespace n on n.oid = pronamespace where nspname = 'public' order by 1, 2`),
    migrations: await sql<{ name: string; at: number }>(`select name, extract(epoch from executed_at)::float8 as at from mikro_orm_migrations order by id`),
  };
}

async function openOn(dataDir: string, migrations: string | null) {
  const embedded = EmbeddedSupervisor.start(embeddedDataDir(dataDir), { migrations });
  return openDatabase({ dataDir, embedded });
}

test('the fingerprint names the migration files and their contents', () => {
  const dir = freshDir();
  fs.writeFileSync(path.join(dir, 'Migration1.js'), 'up 1');
  fs.writeFileSync(path.join(dir, 'index.js'), 'list');
  const first = migrationsFingerprint(dir);
  expect(first).toMatch(/^[0-9a-f]{32}$/);
  expect(migrationsFingerprint(dir)).toBe(first);
  fs.writeFileSync(path.join(dir, 'Migration1.js'), 'up 1, changed');
  const changed = migrationsFingerprint(dir);
  expect(changed).not.toBe(first);
  fs.writeFileSync(path.join(dir, 'Migration2.js'), 'up 2');
  expect(migrationsFingerprint(dir)).not.toBe(changed);
  expect(migrationsFingerprint(path.join(dir, 'none'))).toBeNull();
  // This build's own migrations have one.
  expect(migrationsFingerprint()).toMatch(/^[0-9a-f]{32}$/);
});

test('a data directory copied from the migrated template holds what the migrations make, and is not migrated again', async () => {
  expect(hasMigratedTemplate(fingerprint)).toBe(false);

  // Made as the build makes it: the migrations on the plain template, closed, kept.
  const made = freshDir();
  const maker = await openOn(made, null);
  const madeSchema = await schemaOf(maker);
  await maker.close();
  storeMigratedTemplate(fingerprint, embeddedDataDir(made));
  expect(hasMigratedTemplate(fingerprint)).toBe(true);

  // A first start on the template, beside a first start that migrates the plain one.
  const [copied, migrated] = await Promise.all([openOn(freshDir(), fingerprint), openOn(freshDir(), null)]);
  try {
    const [copiedSchema, migratedSchema] = await Promise.all([schemaOf(copied), schemaOf(migrated)]);
    expect(copiedSchema.columns).toEqual(migratedSchema.columns);
    expect(copiedSchema.indexes).toEqual(migratedSchema.indexes);
    expect(copiedSchema.functions).toEqual(migratedSchema.functions);
    expect(copiedSchema.migrations.map((m) => m.name)).toEqual(migratedSchema.migrations.map((m) => m.name));
    expect(copiedSchema.columns.length).toBeGreaterThan(20);
    // The copy's migrations ran when the template was made, not at this start.
    expect(copiedSchema.migrations).toEqual(madeSchema.migrations);
    expect(migratedSchema.migrations[0].at).toBeGreaterThan(madeSchema.migrations.at(-1)!.at);
  } finally {
    await Promise.all([copied.close(), migrated.close()]);
  }
}, 120_000);

test('a fingerprint that is not a plain hex name is never taken for a template path', () => {
  expect(() => storeMigratedTemplate('../../escape', freshDir())).toThrow(/needs --migrations/);
});
