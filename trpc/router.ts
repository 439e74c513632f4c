import { router } from './init';
import { ttsRouter } from './routers/tts.router';

/** The tRPC API: one thin router per feature over the domain services. */
export const appRouter = router({
  tts: ttsRouter,
});

export type AppRouter = typeof appRouter;
