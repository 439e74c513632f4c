// The storage tier: audio entries in the database and their content-addressed blobs, read and dropped together.
import type { EntityManager } from '@mikro-orm/postgresql';
import { clock } from '../clock';
import { AudioEntry } from './audio-entry.entity';
import type { BlobStore } from './cache/blob-store';
import type { AudioFormat } from './catalogue';
import type { AudioView, MemoryTier } from './memory-tier';
import type { HashMode } from './text';

export class StoredAudio {
  constructor(
    readonly blobs: BlobStore,
    private readonly tier: MemoryTier,
  ) {}

  /** The newest unexpired entry under `hash`, read as the given hash mode. */
  findLive(em: EntityManager, hash: string, by: HashMode = 'direct'): Promise<AudioEntry | null> {
    const where = by === 'direct' ? { hash } : by === 'content' ? { contentHash: hash } : { semanticHash: hash };
    return em.findOne(AudioEntry, { ...where, $or: [{ expiresAt: null }, { expiresAt: { $gt: clock.now() } }] }, { orderBy: { generatedAt: 'desc' } });
  }

  viewOf(e: AudioEntry): AudioView {
    return {
      hash: e.hash,
      provider: e.provider,
      format: e.format as AudioFormat,
      blobKey: e.blobKey,
      fileSize: e.fileSize,
      expiresAt: e.expiresAt ? e.expiresAt.getTime() : null,
      voice: e.voice,
      duration: e.duration,
      cost: e.costAmount,
      generatedAt: e.generatedAt.toISOString(),
    };
  }

  /**
   * A damaged file is gone for every entry that points at it (blobs are content-addressed and
   * shared): all of them are removed, here and from every instance's hot tier, so the next request
   * for any of them generates again instead of answering `cached: true` with a dead URL.
   */
  async dropDamagedBlob(em: EntityManager, blobKey: string): Promise<void> {
    const sharing = await em.find(AudioEntry, { blobKey }, { fields: ['hash'] });
    await em.nativeDelete(AudioEntry, { blobKey });
    await this.blobs.delete(blobKey).catch(() => undefined);
    this.tier.invalidate(sharing.map((e) => e.hash));
  }

  /** Blobs are shared by every entry with the same bytes: one is deleted only when no entry uses it. */
  async dropBlobIfUnused(em: EntityManager, blobKey: string): Promise<void> {
    if (!(await em.count(AudioEntry, { blobKey }))) await this.blobs.delete(blobKey);
  }
}
