// Reading generated audio: whole files (hot tier, then storage), their metadata, and live streams and chunks of progressive generations.
import type { DomainContext } from '../context';
import { DomainError } from '../errors';
import type { TtsAccessPolicy } from './access';
import { CorruptBlobError } from './cache/blob-store';
import type { AudioFormat } from './catalogue';
import { assertAudioHash, isAudioHash } from './hashing';
import type { LiveAudio } from './live-audio';
import { LIVE_GRACE_MS, type LiveStreams } from './live-streams';
import type { AudioView, MemoryTier } from './memory-tier';
import type { AccessRecorder } from './stats';
import type { StoredAudio } from './stored-audio';

/**
 * `countAccess`: count the read in the file's statistics (default yes). `permission`: what the read
 * is part of — reading audio (`tts:read`), or answering a generation with its audio (`tts:generate`,
 * the OpenAI-compatible speech answer).
 */
export interface AudioReadOptions {
  countAccess?: boolean;
  permission?: 'tts:read' | 'tts:generate';
  /** HEAD only asks whether the audio exists: a hash not of the audio form names none (NOT_FOUND, not a 400). */
  malformedIsAbsent?: boolean;
}

export interface AudioFile {
  data: Buffer;
  view: AudioView;
  tier: 'memory' | 'storage';
}

export class AudioRetrieval {
  constructor(private readonly deps: { access: TtsAccessPolicy; tier: MemoryTier; stored: StoredAudio; lives: LiveStreams; accesses: AccessRecorder }) {}

  /**
   * The bytes of one audio file. The hot tier answers without touching the database; otherwise
   * the entry is read and the blob fetched (and integrity-checked). A damaged blob is dropped and
   * reported as absent rather than served. `malformedIsAbsent` (HEAD, which only asks whether the
   * audio exists): a hash not of the audio form names no audio, so NOT_FOUND rather than a 400.
   */
  async getAudio(ctx: DomainContext, hash: string, opts: AudioReadOptions = {}): Promise<AudioFile> {
    if (opts.malformedIsAbsent && !isAudioHash(hash)) {
      this.deps.access.require(ctx, opts.permission ?? 'tts:read');
      throw audioNotFound(hash.slice(0, 100));
    }
    const hot = this.hotAudio(ctx, hash, opts);
    if (hot) return hot;
    const { tier, stored, accesses } = this.deps;
    const entry = await stored.findLive(ctx.em, hash);
    if (!entry) throw audioNotFound(hash);
    let data: Buffer | null;
    try {
      data = await stored.blobs.get(entry.blobKey);
    } catch (err) {
      if (!(err instanceof CorruptBlobError)) throw err;
      await stored.dropDamagedBlob(ctx.em, entry.blobKey);
      throw new DomainError('NOT_FOUND', `Audio '${hash}' was damaged in storage and has been removed; generate it again`, {
        details: { hash, reason: 'integrity-check-failed' },
      });
    }
    if (!data) {
      // The file is gone (removed by hand, lost with a volume): as damaged, for every entry sharing it.
      await stored.dropDamagedBlob(ctx.em, entry.blobKey);
      throw audioNotFound(hash);
    }
    const view = stored.viewOf(entry);
    tier.set(hash, data, view);
    if (opts.countAccess !== false) accesses.record(hash);
    return { data, view, tier: 'storage' };
  }

  /**
   * The file when the hot tier holds it, counted as a read like `getAudio`'s; undefined when it would
   * take the database (no I/O either way). Checks and throws what `getAudio` does.
   */
  hotAudio(ctx: DomainContext, hash: string, opts: AudioReadOptions = {}): AudioFile | undefined {
    this.deps.access.require(ctx, opts.permission ?? 'tts:read');
    assertAudioHash(hash);
    const hot = this.deps.tier.get(hash);
    if (!hot) return undefined;
    if (opts.countAccess !== false) this.deps.accesses.record(hash);
    return { data: hot.data, view: hot.view, tier: 'memory' };
  }

  async getMetadata(ctx: DomainContext, hash: string) {
    const { accesses } = this.deps;
    this.deps.access.require(ctx, 'tts:read');
    assertAudioHash(hash);
    const { e, pending } = await accesses.steadyRead(async () => {
      const e = await this.deps.stored.findLive(ctx.em, hash);
      return { e, pending: accesses.pendingFor(hash) };
    });
    if (!e) throw audioNotFound(hash);
    const lastAccessed = pending && pending.last > e.lastAccessedAt ? pending.last : e.lastAccessedAt;
    return {
      hash: e.hash,
      provider: e.provider,
      voice: e.voice,
      language: e.language,
      format: e.format,
      quality: e.quality,
      speed: e.speed,
      duration: e.duration,
      fileSize: e.fileSize,
      generatedAt: e.generatedAt.toISOString(),
      lastAccessedAt: lastAccessed.toISOString(),
      accessCount: e.accessCount + (pending?.count ?? 0),
      expiresAt: e.expiresAt ? e.expiresAt.toISOString() : null,
      originalText: e.originalText,
      normalizedText: e.normalizedText,
      sampleRate: e.sampleRate,
      bitrate: e.bitrate,
      cost: { amount: e.costAmount, currency: e.costCurrency, charactersCharged: e.charactersCharged },
      hashes: { direct: e.hash, content: e.contentHash, semantic: e.semanticHash },
      requestMetadata: e.requestMetadata ?? null,
    };
  }

  /**
   * The live stream while this instance makes the audio, else null (the stored file is the stream
   * then). Subscribe synchronously: it may finish at the next turn.
   */
  liveStream(ctx: DomainContext, hash: string, permission: AudioReadOptions['permission'] = 'tts:read'): LiveAudio | null {
    this.deps.access.require(ctx, permission);
    assertAudioHash(hash);
    const live = this.deps.lives.get(hash);
    return live && live.state === 'live' ? live : null;
  }

  /** One chunk of a progressive generation, playable alone. */
  async chunkAudio(ctx: DomainContext, hash: string, index: string | number): Promise<{ data: Buffer; format: AudioFormat }> {
    this.deps.access.require(ctx, 'tts:read');
    assertAudioHash(hash);
    const i = typeof index === 'number' ? index : /^\d{1,6}$/.test(index) ? Number(index) : NaN;
    const live = this.deps.lives.get(hash);
    const missing = () =>
      new DomainError(
        'NOT_FOUND',
        `No chunk ${String(index).slice(0, 20)} of '${hash}' is available (chunk audio is kept while a progressive generation runs and ${LIVE_GRACE_MS / 60_000} minutes after)`,
        {
          details: { hash, chunk: String(index).slice(0, 20) },
        },
      );
    if (!live || live.state === 'failed' || !Number.isInteger(i)) throw missing();
    const stored = live.state === 'done' ? (await this.getAudio(ctx, hash, { countAccess: false })).data : undefined;
    const data = await live.chunkFile(i, stored);
    if (!data) throw missing();
    return { data, format: live.format };
  }

  /** Writes the access counts still held in memory. */
  close(): Promise<void> {
    return this.deps.accesses.close();
  }
}

function audioNotFound(hash: string) {
  return new DomainError('NOT_FOUND', `No audio with hash '${hash}'`, { details: { hash } });
}
