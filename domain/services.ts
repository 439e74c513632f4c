import type { EntityManager } from '@mikro-orm/postgresql';
import { AuditTrail } from './audit/audit-trail.service';
import { AuthService } from './auth/auth.service';
import { describeViewer } from './auth/viewer';
import type { EventBus } from './events/bus';
import { HealthService } from './health';
import type { BlobStore } from './tts/cache/blob-store';
import type { ProviderId } from './tts/catalogue';
import { Pricing, type PriceTable } from './tts/pricing';
import type { SpeechProvider } from './tts/providers/provider';
import { TtsService } from './tts/tts.service';
import { SpeechAdmission, type AdmissionLimits } from './tts/admission';
import { createComplianceServices, type ComplianceServices } from './compliance';

export interface DomainDeps {
  rootEm: EntityManager;
  bus: EventBus;
  blobs: BlobStore;
  providers: Record<ProviderId, SpeechProvider>;
  adminApiKey?: string;
  ttsApiKey?: string;
  prices?: PriceTable;
  hotCacheBytes: number;
  environment: string;
  webhookAllowPrivateNetworks: boolean;
  /** Printed on every report (`ORGANISATION_NAME`). */
  organisationName?: string;
  generationLock?: <T>(key: string, fn: () => Promise<T>) => Promise<T>;
  onCacheInvalidated?: (hashes: string[] | 'all') => void;
  /** Bounds on speech generations (characters per minute, concurrency, queue); unbounded when absent. */
  speechLimits?: AdmissionLimits;
  /** Identifies this process in job leases. */
  instanceId: string;
  /** Failures of background work (sealing the audit trail), for the log. */
  onBackgroundError?: (component: string, err: unknown) => void;
}

/** The composition root of the domain: every service, wired once per gateway instance. */
export function createServices(deps: DomainDeps) {
  const auditTrail = new AuditTrail(deps.rootEm, { onError: (err) => deps.onBackgroundError?.('audit-trail', err) });
  const auth = new AuthService(deps.rootEm, { adminApiKey: deps.adminApiKey, ttsApiKey: deps.ttsApiKey, auditTrail });
  const health = new HealthService(deps.rootEm, deps.environment);
  const admission = deps.speechLimits ? new SpeechAdmission(deps.speechLimits) : undefined;
  const tts = new TtsService({
    rootEm: deps.rootEm,
    blobs: deps.blobs,
    providers: deps.providers,
    pricing: new Pricing(deps.prices),
    hotCacheBytes: deps.hotCacheBytes,
    keyRequired: !!deps.ttsApiKey,
    generationLock: deps.generationLock,
    onCacheInvalidated: deps.onCacheInvalidated,
    admission,
  });
  let sweeper: NodeJS.Timeout | undefined;
  const compliance: ComplianceServices = createComplianceServices(deps, { health, auditTrail });
  return {
    auth,
    /** The calling key and its effective permissions (any valid key). */
    viewer: (ctx: Parameters<typeof describeViewer>[0]) => describeViewer(ctx, { speechKeyRequired: !!deps.ttsApiKey }),
    auditTrail,
    health,
    tts,
    ...compliance,
    bus: deps.bus,
    /** Starts background work: expiry sweeps, job workers, webhook delivery. */
    async start() {
      sweeper = setInterval(() => void tts.sweepExpired().catch(() => undefined), 30_000);
      sweeper.unref();
      await compliance.start();
      auditTrail.start();
    },
    async close() {
      clearInterval(sweeper);
      await compliance.stop();
      await auditTrail.stop();
      admission?.close();
      await tts.close();
    },
  };
}

export type Services = ReturnType<typeof createServices>;
