import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';
import { clock } from '../../clock';

/** Who did what and when: the dashboard's recent activity and the `user_activity` event. */
@Entity({ tableName: 'activity_log' })
export class Activity {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Index()
  @Property({ type: 'datetime', columnType: 'timestamptz' })
  at: Date = clock.now();

  @Property({ type: 'string', length: 60 })
  type!: string;

  /** The acting key's name then (display only: names are not unique). */
  @Property({ type: 'string', length: 200 })
  user!: string;

  /** The acting key's id (`admin` for ADMIN_API_KEY): who it was. Null on rows from before it was kept. */
  @Property({ type: 'string', length: 40, nullable: true })
  userKeyId?: string | null;

  @Property({ type: 'text' })
  description!: string;

  @Property({ type: 'string', length: 48, nullable: true })
  subjectId?: string | null;
}
