import { AuditTrail } from './audit/audit-trail.service';
import { AuthService } from './auth/auth.service';
import { PrincipalWatch } from './auth/principal-watch';
import { describeViewer } from './auth/viewer';
import { HealthService } from './health';
import { Pricing } from './tts/pricing';
import { createSpeechServices } from './tts/speech-services';
import { SpeechAdmission } from './tts/admission';
import { AsyncGenerationService } from './tts/async-generation';
import { JobQueue } from './jobs/job-queue';
import { createComplianceServices, type ComplianceServices } from './compliance';
import type { DomainDeps } from './deps';

/** The composition root of the domain: every service, wired once per gateway instance. */
export function createServices(deps: DomainDeps) {
  const auditTrail = new AuditTrail(deps.rootEm, { onError: (err) => deps.onBackgroundError?.('audit-trail', err) });
  const auth = new AuthService(deps.rootEm, { adminApiKey: deps.adminApiKey, ttsApiKey: deps.ttsApiKey, auditTrail });
  // Live channels (sockets, subscriptions, streams) last only while their key is valid.
  const principals = new PrincipalWatch(auth, deps.bus, {
    recheckMs: deps.principalRecheckMs,
    onRevokedElsewhere: () => auth.forgetCached(),
    onError: (err) => deps.onBackgroundError?.('principal-watch', err),
  });
  auth.onRevoked = (keyIds) => principals.announceRevoked(keyIds).catch((err) => deps.onBackgroundError?.('principal-watch', err));
  const health = new HealthService(deps.rootEm, deps.environment);
  const admission = deps.speechLimits ? new SpeechAdmission(deps.speechLimits) : undefined;
  const tts = createSpeechServices({
    rootEm: deps.rootEm,
    blobs: deps.blobs,
    providers: deps.providers,
    pricing: new Pricing(deps.prices),
    links: deps.links,
    hotCacheBytes: deps.hotCacheBytes,
    keyRequired: !!deps.ttsApiKey,
    generationLock: deps.generationLock,
    onCacheInvalidated: deps.onCacheInvalidated,
    admission,
    observer: deps.ttsObserver,
    encoder: deps.audioWorkers?.openEncoder,
  });
  // Speech has its own queue over the same `jobs` table (each queue claims only its own job types).
  const speechQueue = new JobQueue(deps.rootEm, { instanceId: deps.instanceId, onError: (err) => deps.onBackgroundError?.('speech-jobs', err) });
  const speechGenerations = new AsyncGenerationService({
    rootEm: deps.rootEm,
    generation: tts.generation,
    links: deps.links,
    jobs: speechQueue,
    policy: { allowPrivateNetworks: deps.webhookAllowPrivateNetworks },
  });
  let sweeper: NodeJS.Timeout | undefined;
  const compliance: ComplianceServices = createComplianceServices(deps, { health, auditTrail });
  return {
    auth,
    principals,
    /** The calling key and its effective permissions (any valid key). */
    viewer: (ctx: Parameters<typeof describeViewer>[0]) => describeViewer(ctx, { speechKeyRequired: !!deps.ttsApiKey }),
    auditTrail,
    health,
    tts,
    speechQueue,
    speechGenerations,
    ...compliance,
    bus: deps.bus,
    /** Starts background work: expiry sweeps, job workers, webhook delivery. */
    async start() {
      sweeper = setInterval(() => void tts.cache.sweepExpired().catch(() => undefined), 30_000);
      sweeper.unref();
      await compliance.start();
      auditTrail.start();
      speechQueue.start();
    },
    async close() {
      clearInterval(sweeper);
      principals.close();
      // An asynchronous generation under way is interrupted and left queued for another instance.
      speechGenerations.beginStop();
      const speechStopped = speechQueue.stop();
      await compliance.stop();
      await auditTrail.stop();
      admission?.close();
      await tts.close();
      await speechStopped;
    },
  };
}

export type Services = ReturnType<typeof createServices>;
