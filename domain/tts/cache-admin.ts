// Administration of the audio cache: removing entries (one, expired, all), its statistics, and keeping every instance's hot tier coherent.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainContext } from '../context';
import { clock } from '../clock';
import type { TtsAccessPolicy } from './access';
import { AudioEntry } from './audio-entry.entity';
import { assertAudioHash } from './hashing';
import type { MemoryTier } from './memory-tier';
import type { StoredAudio } from './stored-audio';

/** Expired entries removed by one sweep at most; the next sweep takes the rest. */
const SWEEP_BATCH = 500;

export class AudioCacheAdmin {
  constructor(private readonly deps: { rootEm: EntityManager; access: TtsAccessPolicy; tier: MemoryTier; stored: StoredAudio }) {}

  async deleteCacheEntry(ctx: DomainContext, hash: string) {
    this.deps.access.require(ctx, 'tts:admin');
    assertAudioHash(hash);
    const e = await ctx.em.findOne(AudioEntry, { hash });
    if (!e) return { deleted: false };
    await ctx.em.nativeDelete(AudioEntry, { hash });
    await this.deps.stored.dropBlobIfUnused(ctx.em, e.blobKey);
    this.deps.tier.invalidate([hash]);
    return { deleted: true };
  }

  async cacheStats(ctx: DomainContext) {
    this.deps.access.require(ctx, 'tts:admin');
    const rows = await ctx.em
      .getConnection()
      .execute<{ n: number; bytes: string; oldest: Date | null; newest: Date | null }[]>(
        'select count(*)::int as n, coalesce(sum(file_size),0)::bigint as bytes, min(generated_at) as oldest, max(generated_at) as newest from audio_entries where expires_at is null or expires_at > ?',
        [clock.now()],
      );
    const r = rows[0];
    const iso = (d: unknown) => (d ? new Date(d as string).toISOString() : null);
    return {
      totalEntries: Number(r.n),
      totalSize: Number(r.bytes),
      oldestEntry: iso(r.oldest),
      newestEntry: iso(r.newest),
      memoryTier: this.deps.tier.size,
      storage: this.deps.stored.blobs.kind,
    };
  }

  async clearCache(ctx: DomainContext) {
    this.deps.access.require(ctx, 'tts:admin');
    const n = await ctx.em.nativeDelete(AudioEntry, {});
    await this.deps.stored.blobs.clear();
    this.deps.tier.invalidate('all');
    return { message: `Cache cleared: ${n} entries removed` };
  }

  /**
   * Drops entries from this instance's hot tier; `propagate` tells every other instance too (false
   * when the request came from another instance).
   */
  invalidate(hashes: string[] | 'all', propagate = true): void {
    this.deps.tier.invalidate(hashes, propagate);
  }

  /** Removes expired entries; run periodically. */
  async sweepExpired(): Promise<number> {
    const em = this.deps.rootEm.fork();
    const expired = await em.find(AudioEntry, { expiresAt: { $lte: clock.now() } }, { fields: ['hash', 'blobKey'], limit: SWEEP_BATCH });
    if (!expired.length) return 0;
    await em.nativeDelete(AudioEntry, { hash: { $in: expired.map((e) => e.hash) } });
    for (const e of expired) {
      const used = await em.count(AudioEntry, { blobKey: e.blobKey });
      if (!used) await this.deps.stored.blobs.delete(e.blobKey).catch(() => undefined);
    }
    this.deps.tier.invalidate(expired.map((e) => e.hash));
    return expired.length;
  }
}
