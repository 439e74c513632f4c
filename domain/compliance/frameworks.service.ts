import { requirePermission } from '../auth/principal';
import type { DomainContext } from '../context';
import { DomainError } from '../errors';
import { getFramework, isFrameworkId, listFrameworks, SUPPORTED_FRAMEWORKS, type Framework, type FrameworkId } from './catalogue';

/** The one way an unknown framework is reported, wherever it appears (body, query or path). */
export function invalidFramework(value: unknown, field = 'framework'): DomainError {
  const shown = typeof value === 'string' ? value.slice(0, 50) : String(value);
  return new DomainError('INVALID_FRAMEWORK', `Framework '${shown}' is not supported; supported: ${SUPPORTED_FRAMEWORKS.join(', ')}`, {
    details: { supportedFrameworks: [...SUPPORTED_FRAMEWORKS], field, value: shown },
  });
}

/** Narrows a framework id or throws INVALID_FRAMEWORK. */
export function assertFramework(value: unknown, field = 'framework'): FrameworkId {
  if (!isFrameworkId(value)) throw invalidFramework(value, field);
  return value;
}

/**
 * Checks a framework in untrusted input before schema parsing, so an unknown framework is always
 * INVALID_FRAMEWORK rather than a generic VALIDATION_ERROR. Absent or non-string values are left
 * for the schema to report.
 */
export function precheckFramework(raw: unknown, field = 'framework'): void {
  if (raw && typeof raw === 'object' && field in raw) {
    const v = (raw as Record<string, unknown>)[field];
    if (typeof v === 'string' && v !== '' && !isFrameworkId(v)) throw invalidFramework(v, field);
  }
}

export interface FrameworkSummary {
  id: FrameworkId;
  name: string;
  description: string;
  version: string;
  categories: string[];
  /** Number of catalogue clauses (the framework's own requirements), not of stored requirements. */
  requirementCount: number;
  supported: true;
}

export interface FrameworkDetail extends FrameworkSummary {
  requirements: { id: string; section: string; title: string; description: string }[];
  validationRules: { id: string; name: string; description: string }[];
}

export function frameworkSummary(f: Framework): FrameworkSummary {
  return {
    id: f.id,
    name: f.name,
    description: f.description,
    version: f.version,
    categories: [...f.categories],
    requirementCount: f.clauses.length,
    supported: true,
  };
}

export function frameworkDetail(f: Framework): FrameworkDetail {
  return {
    ...frameworkSummary(f),
    requirements: f.clauses.map((c) => ({ id: c.id, section: c.section, title: c.title, description: c.description })),
    validationRules: f.validationRules.map((r) => ({ id: r.id, name: r.name, description: r.description })),
  };
}

/** The static framework catalogue, behind the read:compliance permission. */
export class FrameworksService {
  list(ctx: DomainContext): { data: FrameworkSummary[] } {
    requirePermission(ctx, 'read:compliance');
    return { data: listFrameworks().map(frameworkSummary) };
  }

  get(ctx: DomainContext, id: string): FrameworkDetail {
    requirePermission(ctx, 'read:compliance');
    return frameworkDetail(getFramework(assertFramework(id, 'id')));
  }

  /** Catalogue lookup without a permission check, for nested fields of already-authorised reads. */
  info(id: string): FrameworkSummary | null {
    const f = getFramework(id);
    return f ? frameworkSummary(f) : null;
  }
}
