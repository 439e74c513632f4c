import { router, type KeptAnswer } from './init';
import { ttsRouter } from './routers/tts.router';
import { liveRouter } from './routers/live.router';
import { authRouter, complianceKept, complianceRouter } from './routers/compliance.router';
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

/** Procedures (by path) whose answers the read lane may give from kept answers, in front of tRPC. */
export const KEPT_PROCEDURES: ReadonlyMap<string, KeptAnswer> = new Map(Object.entries(complianceKept).map(([name, answer]) => [`compliance.${name}`, answer]));
