import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * One row: the version of the compliance read model, bumped by database triggers on every change to
 * requirements or audit findings (migration 20261122060000). Never written by the application.
 */
@Entity({ tableName: 'read_model_version' })
export class ReadModelVersion {
  @PrimaryKey({ type: 'smallint', autoincrement: false })
  id!: number;

  @Property({ type: 'bigint', default: 0 })
  version!: string;
}
