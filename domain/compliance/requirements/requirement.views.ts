import type { Implementation, Requirement, RequirementStatus, TechnicalContext, ValidationState } from './requirement.entity';

/** What every transport answers for a requirement: the list form and the detail form. */

export interface RequirementListItem {
  id: string;
  title: string;
  description: string | null;
  /** Null: not yet assigned to a framework. */
  framework: string | null;
  status: RequirementStatus;
  priority: string;
  createdAt: string;
  updatedAt: string;
}

export interface RequirementDetail extends RequirementListItem {
  category: string | null;
  acceptanceCriteria: string[];
  technicalContext: TechnicalContext | null;
  implementation: Implementation | null;
  validation: ValidationState | null;
}

export interface Page<T> {
  data: T[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}

export const requirementListItem = (r: Requirement): RequirementListItem => ({
  id: r.id,
  title: r.title,
  description: r.description ?? null,
  framework: r.framework ?? null,
  status: r.status,
  priority: r.priority,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

export const requirementDetail = (r: Requirement): RequirementDetail => ({
  id: r.id,
  title: r.title,
  description: r.description ?? null,
  framework: r.framework ?? null,
  status: r.status,
  priority: r.priority,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
  category: r.category ?? null,
  acceptanceCriteria: r.acceptanceCriteria ?? [],
  technicalContext: r.technicalContext ?? null,
  implementation: r.implementation ?? null,
  validation: r.validation ?? null,
});
