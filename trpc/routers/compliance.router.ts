import { z } from 'zod';
import { CreateFindingInput, ListFindingsQuery, UpdateFindingInput } from '../../domain/compliance/findings/finding.service';
import {
  BatchStatusItem,
  BatchValidateInput,
  CreateRequirementInput,
  ListRequirementsQuery,
  UpdateRequirementInput,
} from '../../domain/compliance/requirements/requirement.inputs';
import { inputOf, procedure, router, type LaneQuery } from '../init';

const byId = z.object({ id: z.string() });
const byFramework = z.object({ framework: z.string() });

/**
 * Queries the read lane (gateway/read-lane.ts) answers in front of tRPC, kept or computed; the
 * procedures below call these same functions; a thrown error (invalid input, unknown
 * id, refused permission…) sends the call to tRPC, which answers it in its own words.
 */
type LaneCall = Parameters<LaneQuery>[0];
// `satisfies`, not a type annotation: each keeps its own result type, which the procedures (and the typed clients) see.
export const complianceLaneQueries = {
  requirements: ({ ctx, services, input }: LaneCall) => services.requirements.list(ctx, input ?? {}, { detail: true }),
  requirement: ({ ctx, services, input }: LaneCall) => services.requirements.get(ctx, byId.parse(input).id),
} satisfies Record<string, LaneQuery>;

/** Requirements, compliance status, findings and the framework catalogue. */
export const complianceRouter = router({
  // The read lane's own functions, so the lane's answer and tRPC's are one domain call.
  requirements: procedure.input(inputOf(ListRequirementsQuery.optional())).query(({ ctx, input }) => complianceLaneQueries.requirements({ ctx: ctx.domain, services: ctx.services, input })),
  requirement: procedure.input(byId).query(({ ctx, input }) => complianceLaneQueries.requirement({ ctx: ctx.domain, services: ctx.services, input })),
  createRequirement: procedure.input(inputOf(CreateRequirementInput)).mutation(({ ctx, input }) => ctx.services.requirements.create(ctx.domain, input)),
  updateRequirement: procedure
    .input(inputOf(z.object({ id: z.string(), data: UpdateRequirementInput })))
    .mutation(({ ctx, input }) => ctx.services.requirements.update(ctx.domain, input?.id, input?.data)),
  deleteRequirement: procedure.input(byId).mutation(({ ctx, input }) => ctx.services.requirements.remove(ctx.domain, input.id)),
  validateRequirement: procedure.input(byId).mutation(({ ctx, input }) => ctx.services.requirements.validate(ctx.domain, input.id)),
  /** An inline requirement, validated without storing anything. */
  validateInline: procedure.input(inputOf(CreateRequirementInput)).query(({ ctx, input }) => ctx.services.requirements.validateInline(ctx.domain, input)),
  latestValidation: procedure.input(byId).query(({ ctx, input }) => ctx.services.requirements.latestValidation(ctx.domain, input.id)),
  validateBatch: procedure.input(inputOf(BatchValidateInput)).mutation(({ ctx, input }) => ctx.services.requirements.validateBatch(ctx.domain, input)),
  batchCreateRequirements: procedure
    .input(inputOf(z.object({ requirements: z.array(CreateRequirementInput) })))
    .mutation(({ ctx, input }) => ctx.services.requirements.batchCreate(ctx.domain, input)),
  batchUpdateRequirementStatus: procedure
    .input(inputOf(z.object({ updates: z.array(BatchStatusItem) })))
    .mutation(({ ctx, input }) => ctx.services.requirements.batchUpdateStatus(ctx.domain, input)),
  complianceStatus: procedure
    .input(inputOf(byFramework.partial().optional()))
    .query(({ ctx, input }) => ctx.services.complianceStatus.getStatus(ctx.domain, input?.framework)),
  frameworkStatus: procedure.input(byFramework).query(({ ctx, input }) => ctx.services.complianceStatus.frameworkStatus(ctx.domain, input.framework)),
  assess: procedure.input(byFramework).mutation(({ ctx, input }) => ctx.services.complianceStatus.assess(ctx.domain, input.framework)),
  findings: procedure.input(inputOf(ListFindingsQuery.optional())).query(({ ctx, input }) => ctx.services.findings.list(ctx.domain, input ?? {})),
  createFinding: procedure.input(inputOf(CreateFindingInput)).mutation(({ ctx, input }) => ctx.services.findings.create(ctx.domain, input)),
  updateFinding: procedure
    .input(inputOf(z.object({ id: z.string(), data: UpdateFindingInput })))
    .mutation(({ ctx, input }) => ctx.services.findings.update(ctx.domain, input?.id, input?.data)),
  frameworks: procedure.query(({ ctx }) => ctx.services.frameworks.list(ctx.domain)),
  framework: procedure.input(byId).query(({ ctx, input }) => ctx.services.frameworks.get(ctx.domain, input.id)),
});
