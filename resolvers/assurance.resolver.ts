import { FrameworkIdEnum, SignatureMeaningEnum } from '../schema/enums';
import { Arg, Ctx, Float, Int, Mutation, Query, Resolver } from 'type-graphql';
import { ReportStatus } from '../schema/live.types';
import { GateResult, ReportVerification } from '../schema/assurance.types';
import { TraceabilityMatrix } from '../schema/traceability.types';
import type { GqlContext } from './context';

@Resolver()
export class AssuranceResolver {
  @Query(() => TraceabilityMatrix, {
    description: 'GET /v1/compliance/traceability: every clause → requirements → latest validation → findings → evidence; gaps (findings need read:audits)',
  })
  traceability(@Arg('framework', () => FrameworkIdEnum) framework: string, @Ctx() { services, domain }: GqlContext) {
    return services.traceability.matrix(domain, { framework });
  }

  @Query(() => GateResult, {
    description: 'GET /v1/compliance/gate: pass or fail with the reasons (an open critical finding always fails; minScore defaults to 70)',
  })
  complianceGate(
    @Arg('framework', () => FrameworkIdEnum) framework: string,
    @Arg('minScore', () => Float, { nullable: true }) minScore: number | undefined,
    @Arg('maxOpenFindings', () => Int, { nullable: true }) maxOpenFindings: number | undefined,
    @Ctx() { services, domain }: GqlContext,
  ) {
    return services.gate.evaluate(domain, { framework, minScore: minScore ?? undefined, maxOpenFindings: maxOpenFindings ?? undefined });
  }

  @Query(() => ReportVerification, { description: 'POST /v1/compliance/reports/{id}/verify, with the file as base64' })
  verifyComplianceReport(
    @Arg('reportId', () => String) reportId: string,
    @Arg('contentBase64', () => String) contentBase64: string,
    @Ctx() { services, domain }: GqlContext,
  ) {
    return services.reports.verifyCompliance(domain, reportId, { base64: contentBase64 });
  }

  @Mutation(() => ReportStatus, { description: 'POST /v1/compliance/reports/{id}/signatures: sign a completed report as reviewed or approved' })
  signComplianceReport(
    @Arg('reportId', () => String) reportId: string,
    @Arg('meaning', () => SignatureMeaningEnum) meaning: string,
    @Ctx() { services, domain }: GqlContext,
  ) {
    return services.reports.signCompliance(domain, reportId, { meaning });
  }
}
