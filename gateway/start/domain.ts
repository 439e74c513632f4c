import path from 'node:path';
import Redis from 'ioredis';
import { InProcessEventBus, type EventBus } from '../../domain/events/bus';
import { createServices, type Services } from '../../domain/services';
import { DatabaseBlobStore, FsBlobStore, type BlobStore } from '../../domain/tts/cache/blob-store';
import { generationLockOn } from '../../domain/tts/generation';
import { createProviders } from '../../domain/tts/providers/registry';
import { AudioWorkerPool } from '../../domain/tts/audio-workers';
import { HeavyWork } from '../../domain/jobs/heavy-work';
import { restLinks } from '../../rest-adapter/links';
import { configuredSecrets, type GatewayConfig } from '../config';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { RedisEventBus } from '../redis-bus';
import type { DataLayer } from './database';
import { writeEpoch } from '../../domain/database/write-epoch';

export interface DomainLayer {
  services: Services;
  bus: EventBus;
  /** The shared rate-limit store when REDIS_URL is set. */
  redis?: Redis;
  audioWorkers?: AudioWorkerPool;
}

/** Both products' services over the database, with their event bus, blob store, vendors and audio threads. */
export function createDomainLayer(config: GatewayConfig, data: DataLayer, deps: { log: Logger; metrics: Metrics; instanceId: string }): DomainLayer {
  const { log, metrics, instanceId } = deps;
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, lazyConnect: false }) : undefined;
  const bus: EventBus = config.redisUrl ? new RedisEventBus(config.redisUrl, log) : new InProcessEventBus();
  const blobs: BlobStore = config.blobStore === 'database' ? new DatabaseBlobStore(data.rootEm) : new FsBlobStore(path.join(config.dataDir, 'audio'));
  const audioWorkers = config.audioWorkers.size > 0 ? new AudioWorkerPool(config.audioWorkers) : undefined;
  const services = createServices({
    rootEm: data.rootEm,
    bus,
    blobs,
    providers: createProviders({
      mockLatencyMs: config.mockLatencyMs,
      audioWorkers,
      ...config.providers,
      // Clients get the code, status and reason of a vendor failure; its text (redacted) only the log.
      reporting: {
        secrets: configuredSecrets(config),
        onFailure: (upstream) => log.warn({ upstream }, 'vendor call failed'),
        // A vendor host name must resolve to a public address when connecting (SSRF guard).
        policy: { allowPrivateNetworks: config.webhookAllowPrivateNetworks },
      },
    }),
    links: restLinks(),
    adminApiKey: config.adminApiKey,
    ttsApiKey: config.ttsApiKey,
    prices: config.prices,
    hotCacheBytes: config.hotCacheBytes,
    readModelCacheBytes: config.readModelCacheBytes,
    // The embedded database has one client, this process (a private socket and a password per start).
    soleWriter: data.db.embedded ? writeEpoch : undefined,
    environment: config.production ? 'production' : 'development',
    webhookAllowPrivateNetworks: config.webhookAllowPrivateNetworks,
    webhookMaxPerKey: config.webhookMaxPerKey,
    databaseState: () => data.databaseState(),
    // Heavy work is capped across instances by advisory locks on a shared database.
    heavyWork: new HeavyWork(data.locks),
    organisationName: config.organisationName,
    speechLimits: config.speechLimits,
    audioWorkers,
    instanceId,
    onBackgroundError: (component, err) => log.warn({ err, component }, 'background work failed'),
    principalRecheckMs: config.principalRecheckMs,
    generationLock: data.locks ? generationLockOn(data.locks) : undefined,
    ttsObserver: metrics.ttsObserver,
    onCacheInvalidated: (hashes) =>
      void bus.publish('tts.cache', { id: instanceId, type: 'cache.invalidated', data: { hashes, from: instanceId }, createdAt: new Date().toISOString() }),
  });
  metrics.readCircuitStatesFrom(() => services.tts.catalogue.circuitStates());
  // Audio cache entries dropped on another instance are dropped here too.
  bus.subscribe('tts.cache', (e) => {
    if (e.data.from !== instanceId) services.tts.cache.invalidate(e.data.hashes as string[] | 'all', false);
  });
  return { services, bus, redis, audioWorkers };
}
