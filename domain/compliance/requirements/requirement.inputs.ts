import { z } from 'zod';
import { isFrameworkId, SUPPORTED_FRAMEWORKS } from '../catalogue';
import { PRIORITIES, REQUIREMENT_STATUSES } from './requirement.entity';

/**
 * What a client may send about requirements: one zod schema per operation. The service parses with
 * them, the REST route table documents them, and tRPC types its procedures' inputs from them
 * (`z.input<typeof …>`), so no transport copies a field by hand.
 */

/** Documented page-size limits of list endpoints. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;
/** Most items one batch request may carry. */
export const MAX_BATCH_SIZE = 100;

const isoDateTime = z.iso.datetime({ offset: true });
/** The closed set as an enum (documents and types list it); the services' precheck answers INVALID_FRAMEWORK first. */
const frameworkField = z.enum(SUPPORTED_FRAMEWORKS, { error: `framework not supported; supported: ${SUPPORTED_FRAMEWORKS.join(', ')}` });

const TechnicalContextSchema = z.object({
  scope: z.string().max(5000).optional(),
  dataFlow: z.string().max(5000).optional(),
  relatedComponents: z.array(z.string().max(300)).max(100).optional(),
});

const ImplementationSchema = z.object({
  testFile: z.string().max(500).optional(),
  gitBranch: z.string().max(300).optional(),
  relatedIssues: z.array(z.string().max(300)).max(100).optional(),
  completedAt: isoDateTime.nullable().optional(),
});

const fields = {
  title: z.string().trim().min(1).max(300),
  description: z.string().max(20_000).nullable(),
  framework: frameworkField,
  category: z.string().trim().max(100).nullable(),
  priority: z.enum(PRIORITIES),
  acceptanceCriteria: z.array(z.string().trim().min(1).max(2000)).max(100),
  technicalContext: TechnicalContextSchema.nullable(),
  implementation: ImplementationSchema.nullable(),
};

/** Unknown and read-only members (id, status, validation, timestamps) are ignored: a requirement always starts `pending`. */
export const CreateRequirementInput = z.object({
  title: fields.title,
  description: fields.description.optional(),
  /** Absent or null: a requirement not yet assigned to a framework (listed as unassigned, not scored). */
  framework: fields.framework.nullable().optional(),
  category: fields.category.optional(),
  priority: fields.priority.default('medium'),
  acceptanceCriteria: fields.acceptanceCriteria.default([]),
  technicalContext: fields.technicalContext.optional(),
  implementation: fields.implementation.optional(),
});
export type CreateRequirementInput = z.input<typeof CreateRequirementInput>;

/** Partial update: only the members present change; technicalContext and implementation merge member by member. */
export const UpdateRequirementInput = z.object({
  title: fields.title.optional(),
  description: fields.description.optional(),
  /** A framework assigns the requirement to it; null leaves it unassigned again. */
  framework: fields.framework.nullable().optional(),
  category: fields.category.optional(),
  priority: fields.priority.optional(),
  status: z.enum(REQUIREMENT_STATUSES).optional(),
  acceptanceCriteria: fields.acceptanceCriteria.optional(),
  technicalContext: fields.technicalContext.optional(),
  implementation: fields.implementation.optional(),
});
export type UpdateRequirementInput = z.input<typeof UpdateRequirementInput>;

const pageFields = {
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
};
export const PageQuery = z.object(pageFields);

/** A boolean, or `true`/`false` as a query string sends it (documented as a boolean). */
const booleanParam = z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean());

export const ListRequirementsQuery = z
  .object({
    framework: frameworkField.optional(),
    /** true: only requirements not yet assigned to a framework; false: only assigned ones. */
    unassigned: booleanParam.optional(),
    status: z.enum(REQUIREMENT_STATUSES).optional(),
    priority: z.enum(PRIORITIES).optional(),
    ...pageFields,
  })
  .refine((q) => !(q.framework !== undefined && q.unassigned === true), {
    message: 'a requirement of a framework is not unassigned: give framework or unassigned=true, not both',
    path: ['unassigned'],
  });
export type ListRequirementsQuery = z.input<typeof ListRequirementsQuery>;

export const BatchCreateInput = z.object({ requirements: z.array(z.unknown()).min(1).max(MAX_BATCH_SIZE) });
export const BatchStatusInput = z.object({ updates: z.array(z.unknown()).min(1).max(MAX_BATCH_SIZE) });
export const BatchStatusItem = z.object({ id: z.string().min(1).max(100), status: z.enum(REQUIREMENT_STATUSES) });
export const ValidateByIdInput = z.object({ requirementId: z.string().min(1, 'must be a non-empty string').max(100) });
export const BatchValidateInput = z.object({ requirementIds: z.array(z.string().min(1).max(100)).min(1).max(MAX_BATCH_SIZE) });
/** `POST /api/validate`: a stored requirement by id (validated and recorded), or one given inline (validated only). */
export const ValidateInput = z.union([ValidateByIdInput, CreateRequirementInput]);

/** null and undefined members dropped: callers send absent values either way. */
export function withoutNulls(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw ?? {};
  return Object.fromEntries(Object.entries(raw as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined));
}
