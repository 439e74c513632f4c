/**
 * Where the gateway relies on a library below its public API, it does so in one seam per library,
 * checked against the versions listed there. An upgrade of knex, MikroORM, type-graphql, pdfkit or tRPC fails here until
 * someone has read the seam against the new version and added it to the list.
 */
import { KNEX_VERSIONS_CHECKED, knexVersion } from '../../domain/database/knex-seam';
import { resolvedPackageVersion } from '../../domain/database/package-version';
import { MIKRO_ORM_VERSIONS_CHECKED, mikroOrmVersion } from '../../domain/database/orm-seam';
import { TYPE_GRAPHQL_VERSIONS_CHECKED } from '../../gateway/graphql/type-graphql-seam';
import { face } from '../../domain/compliance/reports/render/fonts';
import { PDFKIT_VERSIONS_CHECKED } from '../../domain/compliance/reports/render/pdfkit-seam';
import { TRPC_VERSIONS_CHECKED } from '../../gateway/start/trpc-plain-query';
import { appRouter } from '../../trpc/router';

/** The version the gateway resolves, read as the seams read their own. */
const installedVersion = resolvedPackageVersion;

test('knex: the installed version is one domain/database/knex-seam.ts was checked against, and its statement method is where the seam expects it', () => {
  expect(KNEX_VERSIONS_CHECKED).toContain(knexVersion());

  const Client = require('knex/lib/dialects/postgres/index.js');
  expect(typeof Client.prototype._query).toBe('function');
  expect(Client.prototype._query.length).toBe(2); // (connection, obj)
});

test('MikroORM: the installed version is one domain/database/orm-seam.ts was checked against, and UnitOfWork keeps the commit steps the seam calls', () => {
  expect(MIKRO_ORM_VERSIONS_CHECKED).toContain(mikroOrmVersion());
  for (const pkg of ['@mikro-orm/knex', '@mikro-orm/postgresql', '@mikro-orm/migrations']) expect(installedVersion(pkg)).toBe(mikroOrmVersion());

  const { UnitOfWork } = require('@mikro-orm/core');
  expect(typeof UnitOfWork.prototype.doCommit).toBe('function');
  expect(typeof UnitOfWork.prototype.postCommitCleanup).toBe('function');
  // commit() itself still wraps doCommit in the store the seam leaves out (so the seam is still needed).
  expect(String(UnitOfWork.prototype.commit)).toMatch(/insideFlush\.run\(true, \(\) => this\.doCommit\(\)\)/);
});

test('type-graphql: the installed version is one gateway/graphql/type-graphql-seam.ts was checked against', () => {
  expect(TYPE_GRAPHQL_VERSIONS_CHECKED).toContain(installedVersion('type-graphql'));
});

test('pdfkit: the installed version is one domain/compliance/reports/render/pdfkit-seam.ts was checked against, and its embedded fonts have what the seam uses', () => {
  expect(PDFKIT_VERSIONS_CHECKED).toContain(installedVersion('pdfkit'));
  const PDFDocument = require('pdfkit');
  const doc = new PDFDocument({ autoFirstPage: false });
  doc.registerFont('regular', face('regular').bytes);
  doc.font('regular');
  const font = doc._font;
  expect(typeof font.font.layout).toBe('function');
  expect(typeof font.subset.includeGlyph).toBe('function');
  expect(Array.isArray(font.unicode)).toBe(true);
  expect(typeof doc.endMetadata).toBe('function');
  expect(doc.info).toEqual(expect.objectContaining({ Producer: expect.any(String) }));
});

test('tRPC: the installed version is one gateway/start/trpc-plain-query.ts was checked against, and the router keeps its procedures where the seam reads them', () => {
  expect(TRPC_VERSIONS_CHECKED).toContain(installedVersion('@trpc/server'));
  const procedures = (appRouter as unknown as { _def: { procedures: Record<string, { _def: { type: string } }> } })._def.procedures;
  expect(procedures['compliance.requirements']._def.type).toBe('query');
  expect(typeof procedures['compliance.requirements']).toBe('function');
});
