// Wires the speech services over the state they share (hot tier, storage, live streams); transports call the one they need.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { KeyedLock } from '../database/advisory-locks';
import type { Links } from '../links';
import { TtsAccessPolicy } from './access';
import type { SpeechAdmission } from './admission';
import type { OpenEncoder } from './audio';
import { AudioProducer } from './audio-producer';
import { AudioRetrieval } from './audio-retrieval';
import { AudioCacheAdmin } from './cache-admin';
import type { BlobStore } from './cache/blob-store';
import type { ProviderId } from './catalogue';
import { SpeechGeneration } from './generation';
import { HashService } from './hashing';
import { LiveStreams } from './live-streams';
import { MemoryTier } from './memory-tier';
import { NO_OBSERVER, type TtsObserver } from './observer';
import type { Pricing } from './pricing';
import type { SpeechProvider } from './providers/provider';
import { defaultProviderOf, SpeechCatalogue } from './speech-catalogue';
import { AccessRecorder, ProviderStatsRecorder } from './stats';
import { StoredAudio } from './stored-audio';

export interface SpeechServicesDeps {
  rootEm: EntityManager;
  blobs: BlobStore;
  providers: Record<ProviderId, SpeechProvider>;
  pricing: Pricing;
  links: Links;
  hotCacheBytes: number;
  keyRequired: boolean;
  /** Serialises identical generations across instances; in-process single-flight covers one instance. */
  generationLock?: KeyedLock;
  onCacheInvalidated?: (hashes: string[] | 'all') => void;
  /** Character budget, per-client and server-wide bounds on generations (admission.ts). */
  admission?: SpeechAdmission;
  observer?: TtsObserver;
  /** Where joined MP3/Ogg audio is encoded (the audio worker pool's, off the event loop); this thread when absent. */
  encoder?: OpenEncoder;
}

export function createSpeechServices(deps: SpeechServicesDeps) {
  const { rootEm, links, providers } = deps;
  const observer = deps.observer ?? NO_OBSERVER;
  const access = new TtsAccessPolicy(deps.keyRequired);
  const defaultProvider = defaultProviderOf(providers);
  const tier = new MemoryTier(deps.hotCacheBytes, deps.onCacheInvalidated);
  const stored = new StoredAudio(deps.blobs, tier);
  const lives = new LiveStreams();
  const stats = new ProviderStatsRecorder(rootEm);
  const producer = new AudioProducer({ rootEm, providers, pricing: deps.pricing, stats, observer, stored, tier, lives, encoder: deps.encoder });
  const audio = new AudioRetrieval({ access, tier, stored, lives, accesses: new AccessRecorder(rootEm) });
  return {
    generation: new SpeechGeneration({
      rootEm,
      access,
      defaultProvider,
      tier,
      stored,
      lives,
      producer,
      links,
      observer,
      generationLock: deps.generationLock,
      admission: deps.admission,
    }),
    audio,
    cache: new AudioCacheAdmin({ rootEm, access, tier, stored }),
    catalogue: new SpeechCatalogue({ access, providers, defaultProvider, pricing: deps.pricing, stats }),
    hashes: new HashService({ access, defaultProvider, stored, links }),
    /** Ends upstream calls under way and writes the access counts still in memory. */
    async close() {
      producer.close();
      await audio.close();
    },
  };
}

export type SpeechServices = ReturnType<typeof createSpeechServices>;
