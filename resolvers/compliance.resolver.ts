import { FrameworkIdEnum } from '../schema/enums';
import { Arg, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requirePermission } from '../domain/auth/principal';
import type { RequirementDetail } from '../domain/compliance/requirements/requirement.views';
import type { ComplianceStatusView, FrameworkStatusView } from '../domain/compliance/status/measurement';
import {
  ApiKeyListing,
  BatchCreateResult,
  BatchStatusResult,
  ComplianceStatus,
  CreateApiKeyInput,
  CreateFindingInput,
  CreateRequirementInput,
  DeleteRequirementResult,
  Finding,
  FindingFilter,
  FindingPage,
  Framework,
  FrameworkInfo,
  FrameworkStatus,
  IssuedApiKey,
  Requirement,
  RequirementFilter,
  RequirementPage,
  RevokeApiKeyResult,
  StatusUpdateInput,
  UpdateFindingInput,
  UpdateRequirementInput,
  ValidationResult,
} from '../schema/compliance.types';
import type { GqlContext } from './context';
import { plain } from '../transport/plain';

/** REST keys frameworks by id; GraphQL lists them with the id as a field. */
const statusList = (s: ComplianceStatusView): ComplianceStatus => ({
  overallScore: s.overallScore,
  frameworks: Object.entries(s.frameworks).map(([framework, v]) => ({ framework, ...(v as FrameworkStatusView) })),
});

@Resolver(() => Requirement)
export class ComplianceResolver {
  // ---------- requirements ----------

  @Query(() => RequirementPage, { description: 'GET /v1/requirements (limit default 50, at most 500), newest first' })
  requirements(
    @Arg('filter', () => RequirementFilter, { nullable: true }) filter: RequirementFilter | undefined,
    @Arg('limit', () => Int, { nullable: true }) limit: number | undefined,
    @Arg('offset', () => Int, { nullable: true }) offset: number | undefined,
    @Ctx() { services, domain }: GqlContext,
  ) {
    return services.requirements.list(domain, { ...plain(filter), limit, offset }, { detail: true });
  }

  @Query(() => Requirement, { description: 'GET /v1/requirements/{id}' })
  requirement(@Arg('id', () => String) id: string, @Ctx() { services, domain }: GqlContext) {
    return services.requirements.get(domain, id);
  }

  /** Batched per request through the findings DataLoader: one query for a whole page. */
  @FieldResolver(() => [Finding], { nullable: true, description: 'Audit findings recorded against this requirement (needs read:audits; null with an error without it)' })
  findings(@Root() requirement: RequirementDetail, @Ctx() { domain }: GqlContext) {
    requirePermission(domain, 'read:audits');
    return domain.loaders.findingsByRequirement.load(requirement.id);
  }

  @FieldResolver(() => FrameworkInfo, { nullable: true, description: 'The framework from the catalogue' })
  frameworkInfo(@Root() requirement: RequirementDetail, @Ctx() { services }: GqlContext) {
    return services.frameworks.info(requirement.framework);
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

  @Mutation(() => BatchCreateResult, { description: 'POST /v1/requirements/batch' })
  batchCreateRequirements(@Arg('requirements', () => [CreateRequirementInput]) requirements: CreateRequirementInput[], @Ctx() { services, domain }: GqlContext) {
    return services.requirements.batchCreate(domain, { requirements: plain(requirements) });
  }

  @Mutation(() => BatchStatusResult, { description: 'PATCH /v1/requirements/batch' })
  batchUpdateRequirementStatus(@Arg('updates', () => [StatusUpdateInput]) updates: StatusUpdateInput[], @Ctx() { services, domain }: GqlContext) {
    return services.requirements.batchUpdateStatus(domain, { updates: plain(updates) });
  }

  // ---------- compliance status ----------

  @Query(() => ComplianceStatus, { description: 'GET /v1/compliance/status' })
  async complianceStatus(@Arg('framework', () => FrameworkIdEnum, { nullable: true }) framework: string | undefined, @Ctx() { services, domain }: GqlContext) {
    return statusList(await services.complianceStatus.getStatus(domain, framework));
  }

  @Mutation(() => FrameworkStatus, { description: 'POST /api/compliance/{framework}/assess' })
  assessCompliance(@Arg('framework', () => FrameworkIdEnum) framework: string, @Ctx() { services, domain }: GqlContext) {
    return services.complianceStatus.assess(domain, framework);
  }

  // ---------- findings ----------

  @Query(() => FindingPage, { name: 'findings', description: 'GET /v1/audits/findings' })
  findingsList(
    @Arg('filter', () => FindingFilter, { nullable: true }) filter: FindingFilter | undefined,
    @Arg('limit', () => Int, { nullable: true }) limit: number | undefined,
    @Arg('offset', () => Int, { nullable: true }) offset: number | undefined,
    @Ctx() { services, domain }: GqlContext,
  ) {
    return services.findings.list(domain, { ...plain(filter), limit, offset });
  }

  @Mutation(() => Finding, { description: 'POST /v1/audits/findings' })
  createFinding(@Arg('input', () => CreateFindingInput) input: CreateFindingInput, @Ctx() { services, domain }: GqlContext) {
    return services.findings.create(domain, plain(input));
  }

  @Mutation(() => Finding, { description: 'PATCH /v1/audits/findings/{id}' })
  updateFinding(@Arg('id', () => String) id: string, @Arg('input', () => UpdateFindingInput) input: UpdateFindingInput, @Ctx() { services, domain }: GqlContext) {
    return services.findings.update(domain, id, plain(input));
  }

  // ---------- frameworks ----------

  @Query(() => [Framework], { description: 'GET /v1/frameworks (with clauses and validation rules)' })
  frameworks(@Ctx() { services, domain }: GqlContext) {
    return services.frameworks.list(domain).data.map((f) => services.frameworks.get(domain, f.id));
  }

  @Query(() => Framework, { description: 'GET /v1/frameworks/{id}' })
  framework(@Arg('id', () => FrameworkIdEnum) id: string, @Ctx() { services, domain }: GqlContext) {
    return services.frameworks.get(domain, id);
  }

  // ---------- API keys ----------

  @Query(() => [ApiKeyListing], { description: 'GET /v1/auth/api-keys (admin: every key; others: the keys they issued)' })
  async apiKeys(@Ctx() { services, domain }: GqlContext) {
    return (await services.auth.listKeys(domain)).data;
  }

  @Mutation(() => IssuedApiKey, { description: 'POST /v1/auth/api-keys' })
  createApiKey(@Arg('input', () => CreateApiKeyInput) input: CreateApiKeyInput, @Ctx() { services, domain }: GqlContext) {
    return services.auth.issueKey(domain, plain(input));
  }

  @Mutation(() => RevokeApiKeyResult, { description: 'DELETE /v1/auth/api-keys/{id}' })
  async revokeApiKey(@Arg('id', () => String) id: string, @Ctx() { services, domain }: GqlContext) {
    return services.auth.revokeKey(domain, id);
  }
}
