import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { AuditTrailFilter, AuditTrailPage, AuditTrailVerification } from '../schema/audit-trail.types';
import type { GqlContext } from './context';
import { plain } from '../transport/plain';

@Resolver()
export class AuditTrailResolver {
  @Query(() => AuditTrailPage, { description: 'GET /v1/audit-trail (newest first; limit default 50, at most 500)' })
  auditTrail(
    @Arg('filter', () => AuditTrailFilter, { nullable: true }) filter: AuditTrailFilter | undefined,
    @Arg('limit', () => Int, { nullable: true }) limit: number | undefined,
    @Arg('offset', () => Int, { nullable: true }) offset: number | undefined,
    @Ctx() { services, domain }: GqlContext,
  ) {
    return services.auditTrail.list(domain, { ...plain(filter), limit, offset });
  }

  @Query(() => AuditTrailVerification, { description: 'GET /v1/audit-trail/verify' })
  auditTrailVerification(@Ctx() { services, domain }: GqlContext) {
    return services.auditTrail.verify(domain);
  }
}
