/**
 * Where the gateway relies on a library below its public API, it does so in one seam per library,
 * checked against the versions listed there. An upgrade of knex or type-graphql fails here until
 * someone has read the seam against the new version and added it to the list.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KNEX_VERSIONS_CHECKED, knexVersion } from '../../domain/database/knex-seam';
import { TYPE_GRAPHQL_VERSIONS_CHECKED } from '../../gateway/graphql/type-graphql-seam';

const installedVersion = (pkg: string) => JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'node_modules', pkg, 'package.json'), 'utf8')).version as string;

test('knex: the installed version is one domain/database/knex-seam.ts was checked against, and its statement method is where the seam expects it', () => {
  expect(KNEX_VERSIONS_CHECKED).toContain(knexVersion());
   
  const Client = require('knex/lib/dialects/postgres/index.js');
  expect(typeof Client.prototype._query).toBe('function');
  expect(Client.prototype._query.length).toBe(2); // (connection, obj)
});

test('type-graphql: the installed version is one gateway/graphql/type-graphql-seam.ts was checked against', () => {
  expect(TYPE_GRAPHQL_VERSIONS_CHECKED).toContain(installedVersion('type-graphql'));
});
