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

  @Property({ type: 'string', length: 200 })
  user!: string;

  @Property({ type: 'text' })
  description!: string;

  @Property({ type: 'string', length: 48, nullable: true })
  subjectId?: string | null;
}
