import { router } from './init';
import { ttsRouter } from './routers/tts.router';
import { liveRouter } from './routers/live.router';
import { complianceRouter } from './routers/compliance.router';
import { authRouter } from './routers/auth.router';
import { auditTrailRouter } from './routers/audit-trail.router';
import { assuranceRouter } from './routers/assurance.router';

/** The tRPC API: one thin router per feature over the domain services. */
export const appRouter = router({
  tts: ttsRouter,
  live: liveRouter,
  compliance: complianceRouter,
  auth: authRouter,
  auditTrail: auditTrailRouter,
  assurance: assuranceRouter,
});

export type AppRouter = typeof appRouter;
