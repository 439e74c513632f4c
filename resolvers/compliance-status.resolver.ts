import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { ComplianceStatusView, FrameworkStatusView } from '../domain/compliance/status/measurement';
import { FrameworkIdEnum } from '../schema/enums';
import { ComplianceStatus, FrameworkStatus } from '../schema/compliance.types';
import type { GqlContext } from './context';

/** REST keys frameworks by id; GraphQL lists them with the id as a field. */
const statusList = (s: ComplianceStatusView): ComplianceStatus => ({
  overallScore: s.overallScore,
  frameworks: Object.entries(s.frameworks).map(([framework, v]) => ({ framework, ...(v as FrameworkStatusView) })),
});

/** Compliance scores and explicit assessments. */
@Resolver()
export class ComplianceStatusResolver {
  @Query(() => ComplianceStatus, { description: 'GET /v1/compliance/status' })
  async complianceStatus(@Arg('framework', () => FrameworkIdEnum, { nullable: true }) framework: string | undefined, @Ctx() { services, domain }: GqlContext) {
    return statusList(await services.complianceStatus.getStatus(domain, framework));
  }

  @Mutation(() => FrameworkStatus, { description: 'POST /api/compliance/{framework}/assess' })
  assessCompliance(@Arg('framework', () => FrameworkIdEnum) framework: string, @Ctx() { services, domain }: GqlContext) {
    return services.complianceStatus.assess(domain, framework);
  }
}
