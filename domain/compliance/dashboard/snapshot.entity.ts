import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';
import { clock } from '../../clock';

/** A point-in-time reading of the metrics that `/dashboard/history` charts; history is never invented. */
@Entity({ tableName: 'metric_snapshots' })
@Index({ properties: ['framework', 'takenAt'] })
export class MetricSnapshot {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  takenAt: Date = clock.now();

  /** null = across all frameworks. */
  @Property({ type: 'string', length: 20, nullable: true })
  framework?: string | null;

  @Property({ type: 'double' })
  complianceScore!: number;

  @Property({ type: 'double' })
  requirementCompletion!: number;

  @Property({ type: 'double' })
  validationRate!: number;
}
