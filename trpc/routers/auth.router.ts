import { z } from 'zod';
import { CreateApiKeyContract } from '../../domain/auth/auth.service';
import { inputOf, procedure, router } from '../init';
import { viewerProcedure } from './viewer.router';

/** API keys and the calling key's own view of itself. */
export const authRouter = router({
  apiKeys: procedure.query(({ ctx }) => ctx.services.auth.listKeys(ctx.domain)),
  createApiKey: procedure.input(inputOf(CreateApiKeyContract)).mutation(({ ctx, input }) => ctx.services.auth.issueKey(ctx.domain, input)),
  revokeApiKey: procedure.input(z.object({ id: z.string() })).mutation(({ ctx, input }) => ctx.services.auth.revokeKey(ctx.domain, input.id)),
  viewer: viewerProcedure,
});
