import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '../../domain/database/embedded';
import { openDatabase, type Database } from '../../domain/database/orm';

export interface TestDatabase {
  url: string;
  /** Drops the database (PostgreSQL) or stops it and removes its files (embedded). */
  drop(): Promise<void>;
}

/** The PostgreSQL server the suite runs against, if any (CI sets TEST_DATABASE_URL). */
export const testPostgresUrl = (): string | undefined => process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;

/** A fresh, empty database of its own on the test PostgreSQL server. */
export async function createPostgresDatabase(base: string, prefix = 'gw_test'): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new Client({ connectionString: base });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`).catch(() => undefined);
      await c.end();
    },
  };
}

/**
 * A database that lives apart from any gateway: a fresh one on the test PostgreSQL server, or an
 * embedded PGlite in a process of its own. For tests that stop, cut off or restart the gateway.
 */
export async function createStandaloneDatabase(prefix: string): Promise<TestDatabase> {
  const base = testPostgresUrl();
  if (base) return createPostgresDatabase(base, prefix);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  const embedded = await startEmbeddedPostgres(dir);
  return {
    url: embedded.url,
    async drop() {
      await embedded.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The gateway's own database layer (`openDatabase`, migrations applied) on a database of its own: the
 * suite's PostgreSQL when it has one, else the embedded default under a fresh directory. `close()`
 * closes it and removes what it made.
 */
export async function openTestDatabase(prefix: string): Promise<{ db: Database; close(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  const server = testPostgresUrl() ? await createStandaloneDatabase(`gw_${prefix.replace(/\W/g, '_')}`) : undefined;
  const db = await openDatabase({ dataDir, databaseUrl: server?.url });
  return {
    db,
    async close() {
      await db.close();
      await server?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
