import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { findingProjection } from '../domain/compliance/findings/finding.projection';
import { requirementProjection } from '../domain/compliance/requirements/requirement.projection';
import { can, requirePermission } from '../domain/auth/principal';
import type { RequirementDetail } from '../domain/compliance/requirements/requirement.views';
import {
  BatchCreateResult,
  BatchStatusResult,
  BatchValidateResult,
  CreateRequirementInput,
  DeleteRequirementResult,
  Finding,
  FrameworkInfo,
  Requirement,
  RequirementFilter,
  RequirementPage,
  StatusUpdateInput,
  UpdateRequirementInput,
  ValidationResult,
} from '../schema/compliance.types';
import type { GqlContext } from './context';
import { plain } from '../transport/plain';
import { perSelection, selectedFields } from './selection';

/** What the field resolvers of a requirement read from it: its findings its id, its framework info its framework. */
const NEEDS: Record<string, string> = { findings: 'id', frameworkInfo: 'framework' };

/** The finding fields a `findings` selection asks for, worked out once per document, not per requirement. */
const findingFieldsOf = perSelection((info) => findingProjection(selectedFields(info)));

/**
 * A page's columns (only what the selection needs: JSONB detail only when one of its fields is asked
 * for) and its findings' fields when `findings` is selected, worked out once per document, not per request.
 */
const pageProjectionOf = perSelection((info) => {
  const selected = selectedFields(info, ['data']);
  return {
    fields: requirementProjection([...selected].map((f) => NEEDS[f] ?? f)),
    findings: selected.has('findings') ? findingProjection(selectedFields(info, ['data', 'findings'])) : undefined,
  };
});

/** Requirements: the list and one, their findings and framework, and every change to them. */
@Resolver(() => Requirement)
export class RequirementResolver {
  @Query(() => RequirementPage, { description: 'GET /v1/requirements (limit default 50, at most 500), newest first' })
  async requirements(
    @Arg('filter', () => RequirementFilter, { nullable: true }) filter: RequirementFilter | undefined,
    @Arg('limit', () => Int, { nullable: true }) limit: number | undefined,
    @Arg('offset', () => Int, { nullable: true }) offset: number | undefined,
    @Ctx() { services, domain }: GqlContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const projection = pageProjectionOf(info);
    // Findings the caller may read come in the page's statement and prime the loader the `findings`
    // field reads (one statement a page instead of two); without read:audits that field answers its error.
    const findings = projection.findings && can(domain.principal, 'read:audits') ? projection.findings : undefined;
    const page = await services.requirements.list(domain, { ...plain(filter), limit, offset }, { detail: true, fields: projection.fields, findings });
    if (findings && page.findings) {
      const loader = domain.loaders.findingsByRequirement(findings);
      const { pageFindings } = domain.loaders;
      page.data.forEach((r, i) => {
        loader.prime(r.id, page.findings![i]);
        pageFindings.set(r, page.findings![i]);
      });
    }
    return page;
  }

  @Query(() => Requirement, { description: 'GET /v1/requirements/{id}' })
  requirement(@Arg('id', () => String) id: string, @Ctx() { services, domain }: GqlContext) {
    return services.requirements.get(domain, id);
  }

  /** Batched per request through the findings DataLoader: one query for a whole page. */
  @FieldResolver(() => [Finding], {
    nullable: true,
    description: 'Audit findings recorded against this requirement (needs read:audits; null with an error without it)',
  })
  findings(@Root() requirement: RequirementDetail, @Ctx() { domain }: GqlContext, @Info() info: GraphQLResolveInfo) {
    requirePermission(domain, 'read:audits');
    return domain.loaders.pageFindings.get(requirement) ?? domain.loaders.findingsByRequirement(findingFieldsOf(info)).load(requirement.id);
  }

  @FieldResolver(() => FrameworkInfo, { nullable: true, description: 'The framework from the catalogue' })
  frameworkInfo(@Root() requirement: RequirementDetail, @Ctx() { services }: GqlContext) {
    return requirement.framework ? services.frameworks.info(requirement.framework) : null;
  }

  @Mutation(() => Requirement, { description: 'POST /v1/requirements' })
  createRequirement(@Arg('input', () => CreateRequirementInput) input: CreateRequirementInput, @Ctx() { services, domain }: GqlContext) {
    return services.requirements.create(domain, plain(input));
  }

  @Mutation(() => Requirement, { description: 'PUT /v1/requirements/{id} (partial)' })
  updateRequirement(
    @Arg('id', () => String) id: string,
    @Arg('input', () => UpdateRequirementInput) input: UpdateRequirementInput,
    @Ctx() { services, domain }: GqlContext,
  ) {
    return services.requirements.update(domain, id, plain(input));
  }

  @Mutation(() => DeleteRequirementResult, { description: 'DELETE /api/requirements/{id} (soft delete)' })
  deleteRequirement(@Arg('id', () => String) id: string, @Ctx() { services, domain }: GqlContext) {
    return services.requirements.remove(domain, id);
  }

  @Mutation(() => ValidationResult, { description: 'POST /v1/requirements/{id}/validate' })
  validateRequirement(@Arg('id', () => String) id: string, @Ctx() { services, domain }: GqlContext) {
    return services.requirements.validate(domain, id);
  }

  @Query(() => ValidationResult, {
    description: "POST /api/validate with an inline requirement: validated against its framework's rules, nothing stored (read:requirements)",
  })
  validateInline(@Arg('input', () => CreateRequirementInput) input: CreateRequirementInput, @Ctx() { services, domain }: GqlContext) {
    return services.requirements.validateInline(domain, plain(input));
  }

  @Mutation(() => BatchValidateResult, {
    description: 'POST /api/validate/batch: validates up to 100 stored requirements by id, recording each outcome; unknown ids in `errors`',
  })
  validateBatch(@Arg('requirementIds', () => [String]) requirementIds: string[], @Ctx() { services, domain }: GqlContext) {
    return services.requirements.validateBatch(domain, { requirementIds });
  }

  @Mutation(() => BatchCreateResult, { description: 'POST /v1/requirements/batch' })
  batchCreateRequirements(
    @Arg('requirements', () => [CreateRequirementInput]) requirements: CreateRequirementInput[],
    @Ctx() { services, domain }: GqlContext,
  ) {
    return services.requirements.batchCreate(domain, { requirements: plain(requirements) });
  }

  @Mutation(() => BatchStatusResult, { description: 'PATCH /v1/requirements/batch' })
  batchUpdateRequirementStatus(@Arg('updates', () => [StatusUpdateInput]) updates: StatusUpdateInput[], @Ctx() { services, domain }: GqlContext) {
    return services.requirements.batchUpdateStatus(domain, { updates: plain(updates) });
  }
}
