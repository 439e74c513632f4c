import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import { FrameworkIdEnum } from '../schema/enums';
import { Framework } from '../schema/compliance.types';
import type { GqlContext } from './context';

/** The framework catalogue: clauses and validation rules. */
@Resolver(() => Framework)
export class FrameworkResolver {
  @Query(() => [Framework], { description: 'GET /v1/frameworks (with clauses and validation rules)' })
  frameworks(@Ctx() { services, domain }: GqlContext) {
    return services.frameworks.list(domain).data.map((f) => services.frameworks.get(domain, f.id));
  }

  @Query(() => Framework, { description: 'GET /v1/frameworks/{id}' })
  framework(@Arg('id', () => FrameworkIdEnum) id: string, @Ctx() { services, domain }: GqlContext) {
    return services.frameworks.get(domain, id);
  }
}
