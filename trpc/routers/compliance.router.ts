import { z } from 'zod';
import type { CreateApiKeyInput } from '../../domain/auth/auth.service';
import type { CreateRequirementInput, ListRequirementsQuery, UpdateRequirementInput } from '../../domain/compliance/requirements/requirement.inputs';
import { body, procedure, router, type LaneQuery } from '../init';
import { viewerProcedure } from './viewer.router';

const byId = z.object({ id: z.string() });

type FindingsQuery = { framework?: string; severity?: string; status?: string; requirementId?: string; limit?: number; offset?: number };
type CreateFinding = { title: string; description?: string; framework: string; severity: string; requirementId?: string; evidence?: string[]; discoveredAt?: string; dueDate?: string };
type UpdateFinding = { status?: string; resolution?: string | null; resolvedAt?: string; evidence?: string[]; severity?: string; dueDate?: string | null; description?: string | null };

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

export const complianceRouter = router({
  // The read lane's own functions, so the lane's answer and tRPC's are one domain call.
  requirements: procedure.input(body<ListRequirementsQuery | undefined>()).query(({ ctx, input }) => complianceLaneQueries.requirements({ ctx: ctx.domain, services: ctx.services, input })),
  requirement: procedure.input(byId).query(({ ctx, input }) => complianceLaneQueries.requirement({ ctx: ctx.domain, services: ctx.services, input })),
  createRequirement: procedure.input(body<CreateRequirementInput>()).mutation(({ ctx, input }) => ctx.services.requirements.create(ctx.domain, input)),
  updateRequirement: procedure
    .input(body<{ id: string; data: UpdateRequirementInput }>())
    .mutation(({ ctx, input }) => ctx.services.requirements.update(ctx.domain, input?.id, input?.data)),
  deleteRequirement: procedure.input(byId).mutation(({ ctx, input }) => ctx.services.requirements.remove(ctx.domain, input.id)),
  validateRequirement: procedure.input(byId).mutation(({ ctx, input }) => ctx.services.requirements.validate(ctx.domain, input.id)),
  /** An inline requirement, validated without storing anything. */
  validateInline: procedure.input(body<CreateRequirementInput>()).query(({ ctx, input }) => ctx.services.requirements.validateInline(ctx.domain, input)),
  latestValidation: procedure.input(byId).query(({ ctx, input }) => ctx.services.requirements.latestValidation(ctx.domain, input.id)),
  validateBatch: procedure.input(body<{ requirementIds: string[] }>()).mutation(({ ctx, input }) => ctx.services.requirements.validateBatch(ctx.domain, input)),
  batchCreateRequirements: procedure
    .input(body<{ requirements: CreateRequirementInput[] }>())
    .mutation(({ ctx, input }) => ctx.services.requirements.batchCreate(ctx.domain, input)),
  batchUpdateRequirementStatus: procedure
    .input(body<{ updates: { id: string; status: string }[] }>())
    .mutation(({ ctx, input }) => ctx.services.requirements.batchUpdateStatus(ctx.domain, input)),
  complianceStatus: procedure
    .input(body<{ framework?: string } | undefined>())
    .query(({ ctx, input }) => ctx.services.complianceStatus.getStatus(ctx.domain, input?.framework)),
  frameworkStatus: procedure.input(z.object({ framework: z.string() })).query(({ ctx, input }) => ctx.services.complianceStatus.frameworkStatus(ctx.domain, input.framework)),
  assess: procedure.input(z.object({ framework: z.string() })).mutation(({ ctx, input }) => ctx.services.complianceStatus.assess(ctx.domain, input.framework)),
  findings: procedure.input(body<FindingsQuery | undefined>()).query(({ ctx, input }) => ctx.services.findings.list(ctx.domain, input ?? {})),
  createFinding: procedure.input(body<CreateFinding>()).mutation(({ ctx, input }) => ctx.services.findings.create(ctx.domain, input)),
  updateFinding: procedure.input(body<{ id: string; data: UpdateFinding }>()).mutation(({ ctx, input }) => ctx.services.findings.update(ctx.domain, input?.id, input?.data)),
  frameworks: procedure.query(({ ctx }) => ctx.services.frameworks.list(ctx.domain)),
  framework: procedure.input(byId).query(({ ctx, input }) => ctx.services.frameworks.get(ctx.domain, input.id)),
});

export const authRouter = router({
  apiKeys: procedure.query(({ ctx }) => ctx.services.auth.listKeys(ctx.domain)),
  createApiKey: procedure.input(body<CreateApiKeyInput>()).mutation(({ ctx, input }) => ctx.services.auth.issueKey(ctx.domain, input)),
  revokeApiKey: procedure.input(byId).mutation(({ ctx, input }) => ctx.services.auth.revokeKey(ctx.domain, input.id)),
  viewer: viewerProcedure,
});
