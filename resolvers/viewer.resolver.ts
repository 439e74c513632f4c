import { Ctx, Query, Resolver } from 'type-graphql';
import { Viewer } from '../schema/viewer.types';
import type { GqlContext } from './context';

@Resolver()
export class ViewerResolver {
  @Query(() => Viewer, { description: 'The calling key, its effective permissions and whether speech is open (any valid key)' })
  viewer(@Ctx() { services, domain }: GqlContext) {
    return services.viewer(domain);
  }
}
