// Speech generation as callers ask for it: cached answers first, then admission and one flight per hash, plain, queued or progressive.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { KeyedLock } from '../database/advisory-locks';
import type { DomainContext } from '../context';
import { DomainError } from '../errors';
import { clock } from '../clock';
import type { Links } from '../links';
import type { TtsAccessPolicy } from './access';
import type { CharacterBudget, SpeechAdmission } from './admission';
import type { AudioEntry } from './audio-entry.entity';
import type { AudioProducer } from './audio-producer';
import { assertAudioHash } from './hashing';
import { PROVIDER_CATALOGUE, type ProviderId } from './catalogue';
import type { GenerationResponse, ProgressEvent } from './generation-response';
import type { LiveAudio } from './live-audio';
import type { LiveStreams } from './live-streams';
import type { AudioView, HotItem, MemoryTier } from './memory-tier';
import type { TtsObserver } from './observer';
import { resolveRequest, type ResolvedRequest } from './request';
import type { StoredAudio } from './stored-audio';
import { chunkText, computeHash } from './text';
import { BytesMemo } from '../util/bytes-memo';

/**
 * Chunks of progressive generation: the first sentence alone (so the first audio does not wait for
 * a long chunk), then sentences gathered up to `maxChars`.
 */
export function progressiveChunks(text: string, maxChars: number): string[] {
  const sentences = chunkText(text, { maxChars, minChars: 1 });
  const rest = sentences.length > 1 ? chunkText(sentences.slice(1).join(' '), { maxChars }) : [];
  return [sentences[0], ...rest];
}

/** Chunk size of progressive generation: small enough that the first progress event comes quickly. */
export const PROGRESSIVE_CHUNK_CHARS = 400;
/** Provider calls under way at once for one generation. */
export const CHUNK_CONCURRENCY = 8;
const deepFreeze = <T extends object>(o: T): T => {
  for (const v of Object.values(o)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(o);
};
/** At most this many remembered request bodies per form, each at most this long (≤ 8 MB each). */
const REQUEST_KEYS_MAX = 2000;
const REQUEST_KEY_MAX_BYTES = 4096;

/** The forms a generation request comes in: the same bytes mean another request in each. */
export type GenerationRequestForm = 'generate' | 'speech';

export class SpeechGeneration {
  /** Generations under way on this instance, by direct hash: an identical request joins the first. */
  private readonly inflight = new Map<string, Promise<AudioEntry>>();
  /** A request body's bytes → its direct hash (null: `cache: false`), per form, for `cachedGeneration`; bounded. */
  private readonly requestKeys: Record<GenerationRequestForm, BytesMemo<string | null>> = {
    generate: new BytesMemo(REQUEST_KEYS_MAX, REQUEST_KEY_MAX_BYTES),
    speech: new BytesMemo(REQUEST_KEYS_MAX, REQUEST_KEY_MAX_BYTES),
  };

  constructor(
    private readonly deps: {
      rootEm: EntityManager;
      access: TtsAccessPolicy;
      defaultProvider: ProviderId;
      tier: MemoryTier;
      stored: StoredAudio;
      lives: LiveStreams;
      producer: AudioProducer;
      links: Links;
      observer: TtsObserver;
      /** Serialises identical generations across instances; in-process single-flight covers one instance. */
      generationLock?: KeyedLock;
      /** Character budget, per-client and server-wide bounds on generations (admission.ts). */
      admission?: SpeechAdmission;
    },
  ) {}

  /**
   * `generate`'s answer when the hot tier holds it, without any I/O; undefined when it would take the
   * database or a provider. A cache hit is decided by the direct hash alone, and the hot tier is kept
   * coherent by invalidate() and expiry, as for audio reads. Throws what `generate` would throw.
   * `rawBody`, the bytes the request was parsed from (in `form`), lets a repeated body skip parsing,
   * validation and hashing (all pure functions of those bytes).
   */
  cachedGeneration(ctx: DomainContext, raw: () => unknown, rawBody?: Buffer, form: GenerationRequestForm = 'generate'): GenerationResponse | undefined {
    this.deps.access.require(ctx, 'tts:generate');
    const memo = this.requestKeys[form];
    let key = rawBody === undefined ? undefined : memo.get(rawBody);
    if (key === undefined) {
      const body = raw();
      // An asynchronous request (with a webhook) is always queued, even when its audio exists.
      if (hasWebhook(body)) return undefined;
      const req = resolveRequest(body, this.deps.defaultProvider);
      key = req.cache ? computeHash('direct', req.text, req.options) : null;
      if (rawBody !== undefined) memo.set(rawBody, key);
    }
    if (key === null) return undefined;
    const hot = this.deps.tier.get(key);
    if (!hot) return undefined; // generate() follows and counts where it is answered from
    this.deps.observer.cacheLookup('memory');
    return this.hitResponseOf(hot);
  }

  /** One frozen answer per hot item, so transports may keep its serialised form. */
  private hitResponseOf(hot: HotItem): GenerationResponse {
    return (hot.hitResponse ??= deepFreeze(responseOf(hot.view, true, this.deps.links.audio(hot.view.hash))));
  }

  async generate(ctx: DomainContext, raw: unknown): Promise<GenerationResponse> {
    this.deps.access.require(ctx, 'tts:generate');
    if (hasWebhook(raw)) {
      // Never silently ignored: only the asynchronous operation delivers to a webhook.
      throw new DomainError('VALIDATION_ERROR', 'webhook is taken by asynchronous generation only; use asynchronous generation to have the outcome delivered', {
        fields: [{ field: 'webhook', message: 'not accepted by synchronous generation; use asynchronous generation' }],
      });
    }
    const req = resolveRequest(raw, this.deps.defaultProvider);
    const direct = computeHash('direct', req.text, req.options);
    if (req.cache) {
      const hot = this.deps.tier.get(direct);
      if (hot) {
        this.deps.observer.cacheLookup('memory');
        return this.hitResponseOf(hot);
      }
      const hit = await this.deps.stored.findLive(ctx.em, direct);
      this.deps.observer.cacheLookup(hit ? 'disk' : 'miss');
      if (hit) return this.toResponse(hit, true);
    }
    const release = await this.admit(ctx, req, direct);
    try {
      const entry = await this.singleFlight(direct, req.cache, () => this.deps.producer.produce(req, direct, CHUNK_CONCURRENCY));
      return this.toResponse(entry, false);
    } finally {
      release();
    }
  }

  /**
   * Checks a request to be queued (asynchronous generation) and charges its characters now, so a
   * budget refusal is the refusal of the submission, not a webhook later. Audio that already exists
   * is not charged (as for `generate`). Returns the direct hash the audio will have.
   */
  async admitQueued(ctx: DomainContext, raw: unknown, before?: () => Promise<void>): Promise<{ hash: string }> {
    this.deps.access.require(ctx, 'tts:generate');
    const req = resolveRequest(raw, this.deps.defaultProvider);
    const hash = computeHash('direct', req.text, req.options);
    await before?.();
    const exists = req.cache && (this.deps.tier.get(hash) || (await this.deps.stored.findLive(ctx.em, hash)));
    if (!exists && this.deps.admission && !ctx.principal?.isAdmin) this.deps.admission.charge(clientOf(ctx), req.text.length);
    return { hash };
  }

  /**
   * A queued generation, run by a job on any instance: its characters were charged when it was
   * submitted (admitQueued), and the job queue's concurrency bounds how many run at once.
   */
  async generateQueued(raw: unknown): Promise<GenerationResponse> {
    const req = resolveRequest(raw, this.deps.defaultProvider);
    const direct = computeHash('direct', req.text, req.options);
    if (req.cache) {
      const hot = this.deps.tier.get(direct);
      if (hot) return this.hitResponseOf(hot);
      const hit = await this.deps.stored.findLive(this.deps.rootEm.fork(), direct);
      if (hit) return this.toResponse(hit, true);
    }
    const entry = await this.singleFlight(direct, req.cache, () => this.deps.producer.produce(req, direct, CHUNK_CONCURRENCY));
    return this.toResponse(entry, false);
  }

  /** The direct hash a request's audio has (or will have), after the checks `generate` makes of it. */
  directHash(ctx: DomainContext, raw: unknown): string {
    this.deps.access.require(ctx, 'tts:generate');
    const req = resolveRequest(raw, this.deps.defaultProvider);
    return computeHash('direct', req.text, req.options);
  }

  /** Whether the service is shutting down (a job interrupted by it is left for another instance). */
  get closing(): boolean {
    return this.deps.producer.closing;
  }

  /**
   * A generation that is not a cache hit passes admission (characters, per-client and server-wide
   * concurrency) first; joining an identical generation already under way costs nothing. Admin keys
   * are not charged characters (like the plan limit, which does not apply to them), but queue as anyone.
   */
  private async admit(ctx: DomainContext, req: ResolvedRequest, direct: string): Promise<() => void> {
    const admission = this.deps.admission;
    if (!admission || this.inflight.has(direct)) return () => undefined;
    return admission.admit(clientOf(ctx), ctx.principal?.isAdmin ? 0 : req.text.length);
  }

  /** The caller's character budget (none for admin keys or without admission). */
  characterBudget(ctx: DomainContext): CharacterBudget | undefined {
    if (!this.deps.admission || ctx.principal?.isAdmin) return undefined;
    return this.deps.admission.budgetOf(clientOf(ctx));
  }

  /**
   * Long text, streamed: the text is cut at sentence boundaries, chunks are generated in parallel
   * (bounded), each completion is reported, and the chunks are joined into one file encoded once.
   */
  async generateProgressive(ctx: DomainContext, raw: unknown, emit: (e: ProgressEvent) => void, signal?: AbortSignal): Promise<void> {
    this.deps.access.require(ctx, 'tts:generate');
    const { links, lives } = this.deps;
    const req = resolveRequest(raw, this.deps.defaultProvider);
    const direct = computeHash('direct', req.text, req.options);
    const started = clock.nowMs();
    const spec = PROVIDER_CATALOGUE[req.options.provider];
    const chunks = progressiveChunks(req.text, Math.min(spec.maxCharsPerCall, PROGRESSIVE_CHUNK_CHARS));
    const streamUrl = links.audioStream(direct);
    if (req.cache) {
      const hit = await this.deps.stored.findLive(ctx.em, direct);
      this.deps.observer.cacheLookup(hit ? 'disk' : 'miss');
      if (hit) {
        // From the cache there are no separate chunks: the stream (and the file) is all of it at once.
        emit({ type: 'started', totalChunks: chunks.length, streamUrl });
        emit({ type: 'progress', completed: chunks.length, total: chunks.length, progress: 100 });
        emit(this.completeEvent(hit, chunks.length, clock.nowMs() - started, true));
        return;
      }
    }
    // Refused before the stream opens, so the client gets a plain error answer.
    const release = await this.admit(ctx, req, direct);
    let completed = 0;
    let entry: AudioEntry;
    // The stream exists before `started` names it, so a client may open it at once.
    const live = lives.open(direct, req.options.format, chunks.length);
    const total = live.totalChunks;
    const stopChunks = live.onChunk(({ index }) => {
      completed = index + 1;
      emit({
        type: 'progress',
        completed,
        total,
        progress: Math.round((completed / total) * 1000) / 10,
        chunkIndex: index,
        chunkAudioUrl: links.audioChunk(direct, index),
      });
    });
    try {
      emit({ type: 'started', totalChunks: total, streamUrl });
      entry = await this.singleFlight(direct, req.cache, () => this.deps.producer.produce(req, direct, CHUNK_CONCURRENCY, { chunks, signal, live }));
      if (live.state === 'live') await this.finishFromFile(live, entry);
    } catch (err) {
      lives.end(live, err);
      throw err;
    } finally {
      stopChunks();
      release();
    }
    if (completed < total) {
      // Another request produced the same audio while we waited: report it as done.
      emit({ type: 'progress', completed: total, total, progress: 100 });
    }
    emit(this.completeEvent(entry, total, clock.nowMs() - started, false));
  }

  /**
   * For the status of an asynchronous generation: checks the caller may read audio and the hash is
   * well-formed, and answers the generation response of the audio if it exists, else null.
   */
  async existingGeneration(ctx: DomainContext, hash: string): Promise<GenerationResponse | null> {
    this.deps.access.require(ctx, 'tts:read');
    assertAudioHash(hash);
    const e = await this.deps.stored.findLive(ctx.em, hash);
    return e ? this.toResponse(e, true) : null;
  }

  /** A stream that another generation answered (the audio came whole): it is given the stored file. */
  private async finishFromFile(live: LiveAudio, entry: AudioEntry) {
    const data = this.deps.tier.get(entry.hash)?.data ?? (await this.deps.stored.blobs.get(entry.blobKey));
    // The spool (when there is one) holds the bytes before the stream is ended.
    if (data) await live.write(data);
    this.deps.lives.end(live);
  }

  private completeEvent(entry: AudioEntry, chunks: number, elapsedMs: number, cached: boolean): ProgressEvent {
    return {
      type: 'complete',
      hash: entry.hash,
      audioUrl: this.deps.links.audio(entry.hash),
      duration: entry.duration,
      chunks,
      parallelTime: elapsedMs,
      cached,
      metadata: { provider: entry.provider, voice: entry.voice, generatedAt: entry.generatedAt.toISOString(), fileSize: entry.fileSize },
    };
  }

  /** One generation per hash at a time: concurrent identical requests share the first one's result. */
  private async singleFlight(hash: string, reuseExisting: boolean, produce: () => Promise<AudioEntry>): Promise<AudioEntry> {
    const running = this.inflight.get(hash);
    if (running) return running;
    const lock = this.deps.generationLock ?? ((_h, fn) => fn());
    const p = lock(hash, async () => {
      // Under the lock, another instance may have finished the same audio a moment ago.
      if (reuseExisting) {
        const done = await this.deps.stored.findLive(this.deps.rootEm.fork(), hash);
        if (done) return done;
      }
      return produce();
    }).finally(() => this.inflight.delete(hash));
    this.inflight.set(hash, p);
    return p;
  }

  private toResponse(entry: AudioEntry, cached: boolean): GenerationResponse {
    return responseOf(this.deps.stored.viewOf(entry), cached, this.deps.links.audio(entry.hash));
  }
}

/** The cross-instance single flight of generations (keyed by direct hash) over cluster-wide locks. */
export function generationLockOn(locks: { withLock: KeyedLock }): KeyedLock {
  return (hash, fn) => locks.withLock(`tts.generate:${hash}`, fn);
}

/** Who a generation is charged to: the API key, else the address. */
function clientOf(ctx: DomainContext) {
  return ctx.principal ? `key:${ctx.principal.keyId}` : `ip:${ctx.ip ?? 'unknown'}`;
}

function responseOf(v: AudioView, cached: boolean, audioUrl: string): GenerationResponse {
  return {
    hash: v.hash,
    audioUrl,
    cached,
    duration: v.duration,
    cost: v.cost,
    metadata: { provider: v.provider, voice: v.voice, generatedAt: v.generatedAt, fileSize: v.fileSize, format: v.format },
  };
}

function hasWebhook(raw: unknown): boolean {
  return !!raw && typeof raw === 'object' && !Array.isArray(raw) && (raw as Record<string, unknown>).webhook !== undefined;
}
