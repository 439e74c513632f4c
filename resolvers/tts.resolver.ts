import { DomainError } from '../domain/errors';
import { ProviderIdEnum } from '../schema/enums';
import { Arg, Ctx, Mutation, Query, Resolver, Root, Subscription } from 'type-graphql';
import { progressEvents, type ProgressEvent } from '../transport/progress-stream';
import {
  AudioMetadata,
  CacheStats,
  CostEstimate,
  DeleteResult,
  GenerateInput,
  GenerationProgressEvent,
  GenerationResult,
  GenerationStatusResult,
  QueuedGeneration,
  WebhookTargetInput,
  HashExistsResult,
  HashInfo,
  HashInput,
  HashLookupResult,
  Health,
  Liveness,
  MessageResult,
  Provider,
  ProviderStatsEntry,
  Readiness,
} from '../schema/tts.types';
import type { GqlContext } from './context';
import { plain } from '../transport/plain';

@Resolver()
export class TtsResolver {
  @Mutation(() => GenerationResult, { description: 'Convert text to speech (POST /api/v1/generate)' })
  generate(@Arg('input', () => GenerateInput) input: GenerateInput, @Ctx() { services, domain }: GqlContext) {
    return services.tts.generation.generate(domain, plain(input));
  }

  @Mutation(() => QueuedGeneration, {
    description: 'Asynchronous generation (POST /api/v1/generate with webhook): queued at once; the outcome is POSTed to the webhook, signed',
  })
  generateAsync(
    @Arg('input', () => GenerateInput) input: GenerateInput,
    @Arg('webhook', () => WebhookTargetInput) webhook: WebhookTargetInput,
    @Ctx() { services, domain }: GqlContext,
  ) {
    return services.speechGenerations.submit(domain, { ...plain(input), webhook: plain(webhook) });
  }

  @Query(() => GenerationStatusResult, { description: 'GET /api/v1/generations/{hash}' })
  generation(@Arg('hash', () => String) hash: string, @Ctx() { services, domain }: GqlContext) {
    return services.speechGenerations.status(domain, hash);
  }

  @Subscription(() => GenerationProgressEvent, {
    description: 'Progressive generation: the same started/progress/complete/error events as the SSE stream',
    subscribe: ({ args, context }) => {
      const { services, domain } = context as GqlContext;
      return progressEvents(services, domain, plain(args.input));
    },
  })
  generateProgressive(@Arg('input', () => GenerateInput) _input: GenerateInput, @Root() event: ProgressEvent): GenerationProgressEvent {
    return event as GenerationProgressEvent;
  }

  @Query(() => AudioMetadata, { description: 'GET /api/v1/audio/{hash}/metadata' })
  audioMetadata(@Arg('hash', () => String) hash: string, @Ctx() { services, domain }: GqlContext) {
    return services.tts.audio.getMetadata(domain, hash);
  }

  @Query(() => Boolean, { description: 'HEAD /api/v1/audio/{hash}' })
  async audioExists(@Arg('hash', () => String) hash: string, @Ctx() { services, domain }: GqlContext) {
    try {
      await services.tts.audio.getAudio(domain, hash, { countAccess: false });
      return true;
    } catch (e) {
      if (e instanceof DomainError && e.code === 'NOT_FOUND') return false;
      throw e;
    }
  }

  @Query(() => CostEstimate)
  estimate(@Arg('input', () => GenerateInput) input: GenerateInput, @Ctx() { services, domain }: GqlContext) {
    return services.tts.catalogue.estimate(domain, plain(input));
  }

  @Query(() => [Provider])
  providers(@Ctx() { services, domain }: GqlContext) {
    return services.tts.catalogue.listProviders(domain).providers;
  }

  @Query(() => [String])
  voices(@Arg('provider', () => ProviderIdEnum, { nullable: true }) provider: string | undefined, @Ctx() { services, domain }: GqlContext) {
    return services.tts.catalogue.listVoices(domain, provider).voices;
  }

  @Query(() => [String])
  languages(@Arg('provider', () => ProviderIdEnum, { nullable: true }) provider: string | undefined, @Ctx() { services, domain }: GqlContext) {
    return services.tts.catalogue.listLanguages(domain, provider).languages;
  }

  @Query(() => HashInfo)
  hashInfo(@Arg('input', () => HashInput) input: HashInput, @Ctx() { services, domain }: GqlContext) {
    const { hashMode: _m, allowFallback: _f, ...rest } = plain(input);
    return services.tts.hashes.hashInfo(domain, rest);
  }

  @Query(() => HashLookupResult)
  hashLookup(@Arg('input', () => HashInput) input: HashInput, @Ctx() { services, domain }: GqlContext) {
    return services.tts.hashes.hashLookup(domain, plain(input));
  }

  @Query(() => HashExistsResult)
  hashExists(@Arg('input', () => HashInput) input: HashInput, @Ctx() { services, domain }: GqlContext) {
    const { allowFallback: _f, ...rest } = plain(input);
    return services.tts.hashes.hashExists(domain, rest);
  }

  @Mutation(() => DeleteResult)
  deleteCacheEntry(@Arg('hash', () => String) hash: string, @Ctx() { services, domain }: GqlContext) {
    return services.tts.cache.deleteCacheEntry(domain, hash);
  }

  @Query(() => CacheStats)
  cacheStats(@Ctx() { services, domain }: GqlContext) {
    return services.tts.cache.cacheStats(domain);
  }

  @Mutation(() => MessageResult)
  clearCache(@Ctx() { services, domain }: GqlContext) {
    return services.tts.cache.clearCache(domain);
  }

  @Query(() => [ProviderStatsEntry])
  async providerStats(@Ctx() { services, domain }: GqlContext) {
    const { stats } = await services.tts.catalogue.providerStats(domain);
    return Object.entries(stats).map(([provider, s]) => ({ provider, ...s }));
  }

  @Query(() => Health)
  health(@Ctx() { services }: GqlContext) {
    return services.health.health();
  }

  @Query(() => Readiness)
  ready(@Ctx() { services }: GqlContext) {
    return services.health.ready();
  }

  @Query(() => Liveness)
  live(@Ctx() { services }: GqlContext) {
    return services.health.live();
  }
}
