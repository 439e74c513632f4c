import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Int, Mutation, Query, Resolver } from 'type-graphql';
import { findingProjection } from '../domain/compliance/findings/finding.projection';
import { CreateFindingInput, Finding, FindingFilter, FindingPage, UpdateFindingInput } from '../schema/compliance.types';
import type { GqlContext } from './context';
import { plain } from '../transport/plain';
import { selectedFields } from './selection';

/** Audit findings: the list, recording one and changing it. */
@Resolver(() => Finding)
export class FindingResolver {
  @Query(() => FindingPage, { name: 'findings', description: 'GET /v1/audits/findings' })
  findingsList(
    @Arg('filter', () => FindingFilter, { nullable: true }) filter: FindingFilter | undefined,
    @Arg('limit', () => Int, { nullable: true }) limit: number | undefined,
    @Arg('offset', () => Int, { nullable: true }) offset: number | undefined,
    @Ctx() { services, domain }: GqlContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    // Only the columns the selection needs: `evidence` (JSONB) only when asked for.
    return services.findings.list(domain, { ...plain(filter), limit, offset }, { fields: findingProjection(selectedFields(info, ['data'])) });
  }

  @Mutation(() => Finding, { description: 'POST /v1/audits/findings' })
  createFinding(@Arg('input', () => CreateFindingInput) input: CreateFindingInput, @Ctx() { services, domain }: GqlContext) {
    return services.findings.create(domain, plain(input));
  }

  @Mutation(() => Finding, { description: 'PATCH /v1/audits/findings/{id}' })
  updateFinding(
    @Arg('id', () => String) id: string,
    @Arg('input', () => UpdateFindingInput) input: UpdateFindingInput,
    @Ctx() { services, domain }: GqlContext,
  ) {
    return services.findings.update(domain, id, plain(input));
  }
}
