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
import { DeliveryGate } from './webhooks/delivery-gate';
import { HeavyWork } from './jobs/heavy-work';
import { requirePermission } from './auth/principal';
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
  const health = new HealthService(deps.rootEm, deps.environment, deps.databaseState);
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
  // Outgoing webhooks of both products share one gate: fair shares per receiver and owner, circuit breakers.
  const deliveryGate = deps.deliveryGate ?? new DeliveryGate();
  // Speech has its own queues over the same `jobs` table (each queue claims only its own job types):
  // generations, and their callbacks apart, so callbacks that never answer cannot hold generation slots.
  let speechGenerations: AsyncGenerationService | undefined;
  const speechQueue = new JobQueue(deps.rootEm, {
    instanceId: deps.instanceId,
    onError: (err) => deps.onBackgroundError?.('speech-jobs', err),
    claimFilter: () => speechGenerations!.generationClaimFilter(),
  });
  const speechDeliveries = new JobQueue(deps.rootEm, {
    instanceId: deps.instanceId,
    concurrency: 8,
    onError: (err) => deps.onBackgroundError?.('speech-callbacks', err),
    claimFilter: () => speechGenerations!.deliveryClaimFilter(),
  });
  speechGenerations = new AsyncGenerationService({
    rootEm: deps.rootEm,
    generation: tts.generation,
    links: deps.links,
    jobs: speechQueue,
    deliveries: speechDeliveries,
    gate: deliveryGate,
    policy: { allowPrivateNetworks: deps.webhookAllowPrivateNetworks },
  });
  let sweeper: NodeJS.Timeout | undefined;
  const heavyWork = deps.heavyWork ?? new HeavyWork();
  // A verification walks the whole trail: capped across instances, and verifications asked for at
  // once (a batch, aliases) share one walk; the answer is the same for every key that may ask.
  const verifyTrail = auditTrail.verify.bind(auditTrail);
  auditTrail.verify = (ctx) => {
    requirePermission(ctx, 'read:audit-trail');
    return heavyWork.run('audit-verify', 'trail', () => verifyTrail(ctx));
  };
  const compliance: ComplianceServices = createComplianceServices({ ...deps, deliveryGate, heavyWork }, { health, auditTrail });
  return {
    auth,
    principals,
    /** The calling key and its effective permissions (any valid key). */
    viewer: (ctx: Parameters<typeof describeViewer>[0]) => describeViewer(ctx, { speechKeyRequired: !!deps.ttsApiKey }),
    auditTrail,
    health,
    tts,
    speechQueue,
    speechDeliveries,
    speechGenerations,
    deliveryGate,
    heavyWork,
    ...compliance,
    bus: deps.bus,
    /** Starts background work: expiry sweeps, job workers, webhook delivery. */
    async start() {
      sweeper = setInterval(() => void tts.cache.sweepExpired().catch(() => undefined), 30_000);
      sweeper.unref();
      await compliance.start();
      auditTrail.start();
      speechQueue.start();
      speechDeliveries.start();
    },
    async close() {
      clearInterval(sweeper);
      principals.close();
      // An asynchronous generation under way is interrupted and left queued for another instance.
      speechGenerations.beginStop();
      const speechStopped = Promise.all([speechQueue.stop(), speechDeliveries.stop()]);
      await compliance.stop();
      await auditTrail.stop();
      admission?.close();
      await tts.close();
      await speechStopped;
    },
  };
}

export type Services = ReturnType<typeof createServices>;
