import { Entity, Filter, Index, PrimaryKey, Property } from '@mikro-orm/core';
import { clock } from '../../clock';

export type RequirementStatus = 'pending' | 'in-progress' | 'completed';
export const REQUIREMENT_STATUSES: readonly RequirementStatus[] = ['pending', 'in-progress', 'completed'];
export type Priority = 'critical' | 'high' | 'medium' | 'low';
export const PRIORITIES: readonly Priority[] = ['critical', 'high', 'medium', 'low'];

export interface TechnicalContext {
  scope?: string;
  dataFlow?: string;
  relatedComponents?: string[];
}

export interface Implementation {
  testFile?: string;
  gitBranch?: string;
  relatedIssues?: string[];
  completedAt?: string | null;
}

export const VALIDATION_OUTCOMES = ['passed', 'failed'] as const;

export interface ValidationState {
  status: (typeof VALIDATION_OUTCOMES)[number];
  lastValidated: string;
  score: number;
  issues: unknown[];
}

/**
 * Soft deletion: the ORM filter every entity query of requirements gets unless it turns it off by
 * name (`filters: { [NOT_DELETED]: false }`), for the few readers that must see deleted rows.
 */
export const NOT_DELETED = 'notDeleted';
/** The same condition for hand-written SQL over `requirements`, which the ORM's filters do not reach. */
export const NOT_DELETED_SQL = 'deleted_at is null';

@Entity({ tableName: 'requirements' })
@Filter({ name: NOT_DELETED, cond: { deletedAt: null }, default: true })
// Partial (deleted_at is null) list indexes per filter: migration 20261128100000.
@Index({ name: 'requirements_live_framework_status_created_index', properties: ['framework', 'status', 'createdAt', 'id'] })
@Index({ properties: ['createdAt', 'id'] })
export class Requirement {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 300 })
  title!: string;

  @Property({ type: 'text', nullable: true })
  description?: string | null;

  /** Null: not yet assigned to a framework (listed as unassigned, not scored). */
  @Property({ type: 'string', length: 20, nullable: true })
  framework?: string | null;

  @Property({ type: 'string', length: 100, nullable: true })
  category?: string | null;

  @Property({ type: 'string', length: 10, default: 'medium' })
  priority: Priority = 'medium';

  @Property({ type: 'string', length: 12, default: 'pending' })
  status: RequirementStatus = 'pending';

  @Property({ type: 'json' })
  acceptanceCriteria: string[] = [];

  @Property({ type: 'json', nullable: true })
  technicalContext?: TechnicalContext | null;

  @Property({ type: 'json', nullable: true })
  implementation?: Implementation | null;

  @Property({ type: 'json', nullable: true })
  validation?: ValidationState | null;

  /**
   * Catalogue clauses (sections, e.g. `11.10(e)`) of its framework this requirement maps to: the
   * validation engine's compliance mapping of its text, kept current on every change so coverage
   * and the traceability matrix are read without re-mapping every requirement.
   */
  @Property({ type: 'json', nullable: true })
  clauses?: string[] | null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = clock.now();

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt: Date = clock.now();

  /** Deleted requirements are kept (regulated teams need the record) but hidden everywhere. */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  deletedAt?: Date | null;
}
