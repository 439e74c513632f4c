import { z } from 'zod';
import { CreateFindingInput, ListFindingsQuery, UpdateFindingInput } from '../../domain/compliance/findings/finding.service';
import {
  BatchStatusItem,
  BatchValidateInput,
  CreateRequirementInput,
  ListRequirementsQuery,
  UpdateRequirementInput,
  ValidateInput,
} from '../../domain/compliance/requirements/requirement.inputs';
import { SUPPORTED_FRAMEWORKS, type FrameworkId } from '../../domain/compliance/catalogue';
import { checkedAs, inputOf, procedure, router } from '../init';

const byId = z.object({ id: z.string() });
const byFramework = checkedAs<{ framework: FrameworkId }>(z.object({ framework: z.string() }));

/** Requirements, compliance status, findings and the framework catalogue. */
export const complianceRouter = router({
  requirements: procedure
    .input(inputOf(ListRequirementsQuery.optional()))
    .query(({ ctx, input }) => ctx.services.requirements.list(ctx.domain, input ?? {}, { detail: true })),
  requirement: procedure.input(byId).query(({ ctx, input }) => ctx.services.requirements.get(ctx.domain, input.id)),
  createRequirement: procedure.input(inputOf(CreateRequirementInput)).mutation(({ ctx, input }) => ctx.services.requirements.create(ctx.domain, input)),
  updateRequirement: procedure
    .input(inputOf(z.object({ id: z.string(), data: UpdateRequirementInput })))
    .mutation(({ ctx, input }) => ctx.services.requirements.update(ctx.domain, input?.id, input?.data)),
  deleteRequirement: procedure.input(byId).mutation(({ ctx, input }) => ctx.services.requirements.remove(ctx.domain, input.id)),
  validateRequirement: procedure.input(byId).mutation(({ ctx, input }) => ctx.services.requirements.validate(ctx.domain, input.id)),
  /** An inline requirement, validated without storing anything. */
  validateInline: procedure.input(inputOf(CreateRequirementInput)).query(({ ctx, input }) => ctx.services.requirements.validateInline(ctx.domain, input)),
  latestValidation: procedure.input(byId).query(({ ctx, input }) => ctx.services.requirements.latestValidation(ctx.domain, input.id)),
  /** `POST /api/validate`: `{requirementId}` validates and records a stored requirement; an inline one is validated only. */
  validate: procedure.input(inputOf(ValidateInput)).mutation(({ ctx, input }) => ctx.services.requirements.validateAny(ctx.domain, input)),
  validateBatch: procedure.input(inputOf(BatchValidateInput)).mutation(({ ctx, input }) => ctx.services.requirements.validateBatch(ctx.domain, input)),
  batchCreateRequirements: procedure
    .input(inputOf(z.object({ requirements: z.array(CreateRequirementInput) })))
    .mutation(({ ctx, input }) => ctx.services.requirements.batchCreate(ctx.domain, input)),
  batchUpdateRequirementStatus: procedure
    .input(inputOf(z.object({ updates: z.array(BatchStatusItem) })))
    .mutation(({ ctx, input }) => ctx.services.requirements.batchUpdateStatus(ctx.domain, input)),
  complianceStatus: procedure
    .input(
      inputOf(
        z
          .object({ framework: z.enum(SUPPORTED_FRAMEWORKS) })
          .partial()
          .optional(),
      ),
    )
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
