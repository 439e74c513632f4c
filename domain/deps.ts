import type { EntityManager } from '@mikro-orm/postgresql';
import type { KeyedLock } from './database/advisory-locks';
import type { EventBus } from './events/bus';
import type { BlobStore } from './tts/cache/blob-store';
import type { ProviderId } from './tts/catalogue';
import type { PriceTable } from './tts/pricing';
import type { SpeechProvider } from './tts/providers/provider';
import type { TtsObserver } from './tts/observer';
import type { Links } from './links';
import type { HeavyWork } from './jobs/heavy-work';
import type { DatabaseState } from './health';
import type { DeliveryGate } from './webhooks/delivery-gate';
import type { AdmissionLimits } from './tts/admission';
import type { AudioWorkerPool } from './tts/audio-workers';

/** What the domain needs from the process that hosts it: database, bus, blob store, providers, settings. */
export interface DomainDeps {
  rootEm: EntityManager;
  bus: EventBus;
  blobs: BlobStore;
  providers: Record<ProviderId, SpeechProvider>;
  /** Addresses of what the domain hands out (audio, generation status, report files). */
  links: Links;
  adminApiKey?: string;
  ttsApiKey?: string;
  prices?: PriceTable;
  hotCacheBytes: number;
  /** Bytes of kept read-model answers (0: none kept). */
  readModelCacheBytes?: number;
  /**
   * When this process is the only one that can change the database (the embedded one), its count of
   * statements that may change data (database/write-epoch.ts): reads then skip re-reading versions.
   */
  soleWriter?: () => number;
  environment: string;
  webhookAllowPrivateNetworks: boolean;
  /** Active compliance webhooks one key may have (default 25). */
  webhookMaxPerKey?: number;
  /** Fair shares of outgoing webhooks per receiver and owner, shared by both products (made by createServices). */
  deliveryGate?: DeliveryGate;
  /** Printed on every report (`ORGANISATION_NAME`). */
  organisationName?: string;
  /** Runs generation of one audio once across instances (advisory locks on a shared database). */
  generationLock?: KeyedLock;
  onCacheInvalidated?: (hashes: string[] | 'all') => void;
  /** Speech metrics (the gateway's Prometheus counters). */
  ttsObserver?: TtsObserver;
  /** Bounds on speech generations (characters per minute, concurrency, queue); unbounded when absent. */
  speechLimits?: AdmissionLimits;
  /** Threads for mock synthesis and MP3/Ogg encoding (off the event loop); on the event loop when absent. */
  audioWorkers?: AudioWorkerPool;
  /** Identifies this process in job leases. */
  instanceId: string;
  /** Failures of background work (sealing the audit trail), for the log. */
  onBackgroundError?: (component: string, err: unknown) => void;
  /** Caps and shared results of heavy work across instances (made by createServices when absent). */
  heavyWork?: HeavyWork;
  /** The database's state for health (the guard's view, the embedded database's process). */
  databaseState?: () => DatabaseState;
  /** How often live channels re-read their callers' keys from the database (default 2.5 s). */
  principalRecheckMs?: number;
}
