import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122014758 } from './Migration20261122014758';

/** Listed by hand (not globbed) so the same list works from TypeScript sources and the compiled build. */
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261122014758_initial', class: Migration20261122014758 },
];
