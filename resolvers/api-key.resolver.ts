import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { ApiKeyListing, CreateApiKeyInput, IssuedApiKey, RevokeApiKeyResult } from '../schema/compliance.types';
import type { GqlContext } from './context';
import { plain } from '../transport/plain';

/** API keys: listing, issuing and revoking. */
@Resolver(() => ApiKeyListing)
export class ApiKeyResolver {
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
