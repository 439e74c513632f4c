import { z } from 'zod';
import { GenerationRequestContract, withOptionsContract } from '../../domain/tts/request';
import { PROVIDER_IDS, type ProviderId } from '../../domain/tts/catalogue';
import { WebhookTargetSchema } from '../../domain/tts/async-generation';
import { HashExistsSchema, HashLookupSchema, HashRequestSchema } from '../../domain/tts/hashing';
import { isLastProgressEvent, progressEvents } from '../../transport/progress-stream';
import { inputOf, procedure, router } from '../init';

// Inputs are typed with the documented closed sets; the domain validates (INVALID_PROVIDER, …).
const generationInput = inputOf(GenerationRequestContract);
const byProvider = inputOf(z.object({ provider: z.enum(PROVIDER_IDS as [ProviderId, ...ProviderId[]]).optional() }).optional());

export const ttsRouter = router({
  generate: procedure.input(generationInput).mutation(({ ctx, input }) => ctx.services.tts.generation.generate(ctx.domain, input)),
  /** Asynchronous generation: queued at once; the outcome is POSTed to `webhook.url`, signed. */
  generateAsync: procedure
    .input(inputOf(GenerationRequestContract.extend({ webhook: WebhookTargetSchema })))
    .mutation(({ ctx, input }) => ctx.services.speechGenerations.submit(ctx.domain, input)),
  generation: procedure.input(z.object({ hash: z.string() })).query(({ ctx, input }) => ctx.services.speechGenerations.status(ctx.domain, input.hash)),
  generateProgressive: procedure.input(generationInput).subscription(async function* ({ ctx, input }) {
    for await (const e of progressEvents(ctx.services, ctx.domain, input)) {
      yield e;
      if (isLastProgressEvent(e)) break;
    }
  }),
  audioMetadata: procedure.input(z.object({ hash: z.string() })).query(({ ctx, input }) => ctx.services.tts.audio.getMetadata(ctx.domain, input.hash)),
  estimate: procedure.input(generationInput).query(({ ctx, input }) => ctx.services.tts.catalogue.estimate(ctx.domain, input)),
  providers: procedure.query(({ ctx }) => ctx.services.tts.catalogue.listProviders(ctx.domain)),
  voices: procedure.input(byProvider).query(({ ctx, input }) => ctx.services.tts.catalogue.listVoices(ctx.domain, input?.provider)),
  languages: procedure.input(byProvider).query(({ ctx, input }) => ctx.services.tts.catalogue.listLanguages(ctx.domain, input?.provider)),
  hashInfo: procedure.input(inputOf(withOptionsContract(HashRequestSchema))).query(({ ctx, input }) => ctx.services.tts.hashes.hashInfo(ctx.domain, input)),
  hashLookup: procedure.input(inputOf(withOptionsContract(HashLookupSchema))).query(({ ctx, input }) => ctx.services.tts.hashes.hashLookup(ctx.domain, input)),
  hashExists: procedure.input(inputOf(withOptionsContract(HashExistsSchema))).query(({ ctx, input }) => ctx.services.tts.hashes.hashExists(ctx.domain, input)),
  deleteCacheEntry: procedure
    .input(z.object({ hash: z.string() }))
    .mutation(({ ctx, input }) => ctx.services.tts.cache.deleteCacheEntry(ctx.domain, input.hash)),
  cacheStats: procedure.query(({ ctx }) => ctx.services.tts.cache.cacheStats(ctx.domain)),
  clearCache: procedure.mutation(({ ctx }) => ctx.services.tts.cache.clearCache(ctx.domain)),
  providerStats: procedure.query(({ ctx }) => ctx.services.tts.catalogue.providerStats(ctx.domain)),
  health: procedure.query(({ ctx }) => ctx.services.health.health()),
  ready: procedure.query(({ ctx }) => ctx.services.health.ready()),
  live: procedure.query(({ ctx }) => ctx.services.health.live()),
});
