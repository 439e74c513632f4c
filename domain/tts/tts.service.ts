import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { DomainContext } from '../context';
import { DomainError, notFound } from '../errors';
import { parseInput } from '../validation';
import { AudioDecodeError, joinWavChunks, joinWavChunksInOrder, joinWavChunksLive, probe, type OpenEncoder } from './audio';
import { LiveAudio } from './live-audio';
import { joinStreamedWavChunksLive } from './streamed-wav';
import { AudioEntry } from './audio-entry.entity';
import { BlobStore, CorruptBlobError, blobKeyOf } from './cache/blob-store';
import { SizeBoundedLru } from '../util/size-bounded-lru';
import { PROVIDER_CATALOGUE, PROVIDER_IDS, isProviderId, type AudioFormat, type ProviderId } from './catalogue';
import { TtsAccessPolicy } from './access';
import { characterHeaders, type CharacterBudget, type SpeechAdmission } from './admission';
import { Pricing } from './pricing';
import type { SpeechProvider } from './providers/provider';
import type { CircuitState } from './providers/resilience';
import { GenerationRequestSchema, resolveRequest, TtsOptionsSchema, type ResolvedRequest } from './request';
import { AccessRecorder, ProviderStatsRecorder } from './stats';
import { chunkText, computeHash, computeHashes, normalizeContent, HASH_MODES, type HashMode } from './text';
import { aheadInOrder, mapLimit } from '../util/concurrency';
import { clock } from '../clock';

export const AUDIO_URL_PREFIX = '/api/v1/audio/';

export interface GenerationResponse {
  hash: string;
  audioUrl: string;
  cached: boolean;
  duration: number;
  cost: number;
  metadata: { provider: string; voice: string; generatedAt: string; fileSize: number; format: string };
}

export const PROGRESS_EVENT_TYPES = ['started', 'progress', 'complete', 'error'] as const;

export type ProgressEvent =
  | { type: 'started'; totalChunks: number; streamUrl: string }
  | { type: 'progress'; completed: number; total: number; progress: number; chunkIndex?: number; chunkAudioUrl?: string }
  | {
      type: 'complete';
      hash: string;
      audioUrl: string;
      duration: number;
      chunks: number;
      parallelTime: number;
      cached: boolean;
      metadata: { provider: string; voice: string; generatedAt: string; fileSize: number };
    }
  | { type: 'error'; message: string; code?: string };

/** The last event of a progressive generation whose caller's key stopped being valid. */
export const lostKeyEvent = (loss: { code: string; message: string }): ProgressEvent => ({ type: 'error', message: loss.message, code: loss.code });

/** What serving one audio file needs, kept beside its bytes in the hot tier. */
export interface AudioView {
  hash: string;
  provider: string;
  format: AudioFormat;
  blobKey: string;
  fileSize: number;
  expiresAt: number | null;
  /** The rest of a generation response, so a repeated generate is answered without the database. */
  voice: string;
  duration: number;
  cost: number;
  generatedAt: string;
}

interface HotItem {
  size: number;
  data: Buffer;
  view: AudioView;
  /** `generate`'s answer for a cache hit on this item: the same (frozen) object every time. */
  hitResponse?: GenerationResponse;
}

export interface AudioFile {
  data: Buffer;
  view: AudioView;
  tier: 'memory' | 'storage';
}

/** Where a generation's audio came from: the hot tier, storage, or nowhere (a provider makes it). */
export type CacheTier = 'memory' | 'disk' | 'miss';

/**
 * What speech does, for metrics (the gateway counts these; the domain knows nothing of Prometheus).
 * Every method must be cheap and must not throw.
 */
export interface TtsObserver {
  /** A generation that went to a provider, by its outcome. */
  generation(provider: ProviderId, outcome: 'success' | 'error'): void;
  /** One upstream call (one chunk), in seconds. */
  upstreamCall(provider: ProviderId, outcome: 'success' | 'error', seconds: number): void;
  /** A cached generation request (cache: true), by where it was answered from. */
  cacheLookup(tier: CacheTier): void;
}

const NO_OBSERVER: TtsObserver = { generation() {}, upstreamCall() {}, cacheLookup() {} };

export interface TtsServiceDeps {
  rootEm: EntityManager;
  blobs: BlobStore;
  providers: Record<ProviderId, SpeechProvider>;
  pricing: Pricing;
  hotCacheBytes: number;
  keyRequired: boolean;
  /** Serialises identical generations across instances; in-process single-flight covers one instance. */
  generationLock?: <T>(hash: string, fn: () => Promise<T>) => Promise<T>;
  onCacheInvalidated?: (hashes: string[] | 'all') => void;
  /** Character budget, per-client and server-wide bounds on generations (admission.ts). */
  admission?: SpeechAdmission;
  observer?: TtsObserver;
  /** Where joined MP3/Ogg audio is encoded (the audio worker pool's, off the event loop); this thread when absent. */
  encoder?: OpenEncoder;
}

export const HashRequestSchema = z.object({
  text: z.string({ error: 'text is required and must be a string' }).min(1, 'must not be empty').max(100_000),
  options: TtsOptionsSchema.optional(),
});
const HashModeSchema = z.enum(['direct', 'content', 'semantic']);
export const HashLookupSchema = HashRequestSchema.extend({ hashMode: HashModeSchema.default('direct'), allowFallback: z.boolean().optional() });
export const HashExistsSchema = HashRequestSchema.extend({ hashMode: HashModeSchema.default('direct') });
const HASH_PARAM = /^[0-9a-f]{64}$/;

/** How long a finished live stream's chunk offsets are kept, so its chunk URLs keep working. */
const LIVE_GRACE_MS = 10 * 60_000;
export const streamUrlOf = (hash: string) => `${AUDIO_URL_PREFIX}${hash}/stream`;
export const chunkUrlOf = (hash: string, index: number) => `${AUDIO_URL_PREFIX}${hash}/chunks/${index}`;

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
const PROGRESSIVE_CHUNK_CHARS = 400;
const CHUNK_CONCURRENCY = 8;
/** How far chunk generation may run ahead of the encoder (chunks kept waiting in memory at most). */
const CHUNK_LOOKAHEAD = 16;
const deepFreeze = <T extends object>(o: T): T => {
  for (const v of Object.values(o)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(o);
};
/** At most this many remembered request bodies, each at most this long (≤ 8 MB in all). */
const REQUEST_KEYS_MAX = 2000;
const REQUEST_KEY_MAX_TEXT = 4096;

export class TtsService {
  private readonly hot: SizeBoundedLru<HotItem>;
  private readonly inflight = new Map<string, Promise<AudioEntry>>();
  /** Progressive generations under way on this instance (and recently finished ones' chunk offsets). */
  private readonly lives = new Map<string, LiveAudio>();
  /** Request JSON → its direct hash (null: `cache: false`), for `cachedGeneration`; bounded. */
  private readonly requestKeys = new Map<string, string | null>();
  readonly stats: ProviderStatsRecorder;
  readonly accesses: AccessRecorder;
  private readonly access: TtsAccessPolicy;
  /** Aborted on shutdown, so in-flight upstream calls end instead of outliving the database. */
  private readonly shuttingDown = new AbortController();
  readonly defaultProvider: ProviderId;
  private readonly observer: TtsObserver;

  constructor(private readonly deps: TtsServiceDeps) {
    this.observer = deps.observer ?? NO_OBSERVER;
    this.hot = new SizeBoundedLru<HotItem>(deps.hotCacheBytes);
    this.stats = new ProviderStatsRecorder(deps.rootEm);
    this.accesses = new AccessRecorder(deps.rootEm);
    this.access = new TtsAccessPolicy(deps.keyRequired);
    this.defaultProvider = (['provider_a', 'provider_b', 'provider_c'] as ProviderId[]).find((p) => deps.providers[p].isConfigured()) ?? 'mock';
  }

  /** Each provider's upstream circuit: closed, open or half-open (closed for those without one). */
  circuitStates(): Record<ProviderId, CircuitState> {
    return Object.fromEntries(PROVIDER_IDS.map((p) => [p, this.deps.providers[p].circuitState?.() ?? 'closed'])) as Record<ProviderId, CircuitState>;
  }

  async close() {
    this.shuttingDown.abort(new Error('The server is shutting down'));
    await this.accesses.close();
  }

  // ---- generation ---------------------------------------------------------------------------

  /**
   * `generate`'s answer when the hot tier holds it, without any I/O; undefined when it would take the
   * database or a provider. A cache hit is decided by the direct hash alone, and the hot tier is kept
   * coherent by invalidate() and expiry, as for audio reads. Throws what `generate` would throw.
   * `rawText`, the JSON the request was parsed from, lets a repeated body skip parsing, validation
   * and hashing (all pure functions of that text).
   */
  cachedGeneration(ctx: DomainContext, raw: () => unknown, rawText?: string): GenerationResponse | undefined {
    this.access.require(ctx, 'tts:generate');
    let key = rawText === undefined ? undefined : this.requestKeys.get(rawText);
    if (key === undefined) {
      const body = raw();
      // An asynchronous request (with a webhook) is always queued, even when its audio exists.
      if (hasWebhook(body)) return undefined;
      const req = resolveRequest(body, this.defaultProvider);
      key = req.cache ? computeHash('direct', req.text, req.options) : null;
      if (rawText !== undefined && rawText.length <= REQUEST_KEY_MAX_TEXT) {
        if (this.requestKeys.size >= REQUEST_KEYS_MAX) this.requestKeys.clear();
        this.requestKeys.set(rawText, key);
      }
    }
    if (key === null) return undefined;
    const hot = this.liveHot(key);
    if (!hot) return undefined; // generate() follows and counts where it is answered from
    this.observer.cacheLookup('memory');
    return this.hitResponseOf(hot);
  }

  /** One frozen answer per hot item, so transports may keep its serialised form (fast-lane.ts). */
  private hitResponseOf(hot: HotItem): GenerationResponse {
    return (hot.hitResponse ??= deepFreeze(this.responseOf(hot.view, true)));
  }

  async generate(ctx: DomainContext, raw: unknown): Promise<GenerationResponse> {
    this.access.require(ctx, 'tts:generate');
    if (hasWebhook(raw)) {
      // Never silently ignored: only the asynchronous operation delivers to a webhook.
      throw new DomainError('VALIDATION_ERROR', 'webhook is taken by asynchronous generation (REST: POST /api/v1/generate answers 202; GraphQL and tRPC: generateAsync)', {
        fields: [{ field: 'webhook', message: 'not accepted by synchronous generation; use generateAsync' }],
      });
    }
    const req = resolveRequest(raw, this.defaultProvider);
    if (req.cache) {
      const direct = computeHash('direct', req.text, req.options);
      const hot = this.liveHot(direct);
      if (hot) {
        this.observer.cacheLookup('memory');
        return this.hitResponseOf(hot);
      }
      const hit = await this.findLive(ctx.em, direct);
      this.observer.cacheLookup(hit ? 'disk' : 'miss');
      if (hit) return this.toResponse(hit, true);
    }
    const direct = computeHash('direct', req.text, req.options);
    const release = await this.admit(ctx, req, direct);
    try {
      const entry = await this.singleFlight(direct, req.cache, () => this.produce(req, direct, CHUNK_CONCURRENCY));
      return this.toResponse(entry, false);
    } finally {
      release();
    }
  }

  /**
   * Checks a request to be queued (asynchronous generation) and charges its characters now, so a
   * budget refusal is the 429 of the submission, not a webhook later. Audio that already exists is
   * not charged (as for `generate`). Returns the direct hash the audio will have.
   */
  async admitQueued(ctx: DomainContext, raw: unknown, before?: () => Promise<void>): Promise<{ hash: string }> {
    this.access.require(ctx, 'tts:generate');
    const req = resolveRequest(raw, this.defaultProvider);
    const hash = computeHash('direct', req.text, req.options);
    await before?.();
    const exists = req.cache && (this.liveHot(hash) || (await this.findLive(ctx.em, hash)));
    if (!exists && this.deps.admission && !ctx.principal?.isAdmin) this.deps.admission.charge(this.clientOf(ctx), req.text.length);
    return { hash };
  }

  /**
   * A queued generation, run by a job on any instance: its characters were charged when it was
   * submitted (admitQueued), and the job queue's concurrency bounds how many run at once.
   */
  async generateQueued(raw: unknown): Promise<GenerationResponse> {
    const req = resolveRequest(raw, this.defaultProvider);
    const direct = computeHash('direct', req.text, req.options);
    if (req.cache) {
      const hot = this.liveHot(direct);
      if (hot) return this.hitResponseOf(hot);
      const hit = await this.findLive(this.deps.rootEm.fork(), direct);
      if (hit) return this.toResponse(hit, true);
    }
    const entry = await this.singleFlight(direct, req.cache, () => this.produce(req, direct, CHUNK_CONCURRENCY));
    return this.toResponse(entry, false);
  }

  /**
   * For the status of an asynchronous generation: checks the caller may read audio and the hash is
   * well-formed, and answers the generation response of the audio if it exists, else null.
   */
  async existingGeneration(ctx: DomainContext, hash: string): Promise<GenerationResponse | null> {
    this.access.require(ctx, 'tts:read');
    this.checkHashParam(hash);
    const e = await this.findLive(ctx.em, hash);
    return e ? this.toResponse(e, true) : null;
  }

  /** Whether the service is shutting down (a job interrupted by it is left for another instance). */
  get closing(): boolean {
    return this.shuttingDown.signal.aborted;
  }

  /** Who a generation is charged to: the API key, else the address. */
  private clientOf(ctx: DomainContext) {
    return ctx.principal ? `key:${ctx.principal.keyId}` : `ip:${ctx.ip ?? 'unknown'}`;
  }

  /**
   * A generation that is not a cache hit passes admission (characters, per-client and server-wide
   * concurrency) first; joining an identical generation already under way costs nothing. Admin keys
   * are not charged characters (like the plan limit, which does not apply to them), but queue as anyone.
   */
  private async admit(ctx: DomainContext, req: ResolvedRequest, direct: string): Promise<() => void> {
    const admission = this.deps.admission;
    if (!admission || this.inflight.has(direct)) return () => undefined;
    return admission.admit(this.clientOf(ctx), ctx.principal?.isAdmin ? 0 : req.text.length);
  }

  /** The caller's character budget as `RateLimit-Characters-*` headers (none for admin keys or without admission). */
  characterBudgetHeaders(ctx: DomainContext): Record<string, string> | undefined {
    if (!this.deps.admission || ctx.principal?.isAdmin) return undefined;
    const budget: CharacterBudget = this.deps.admission.budgetOf(this.clientOf(ctx));
    return characterHeaders(budget);
  }

  /**
   * Long text, streamed: the text is cut at sentence boundaries, chunks are generated in parallel
   * (bounded), each completion is reported, and the chunks are joined into one file encoded once.
   */
  async generateProgressive(ctx: DomainContext, raw: unknown, emit: (e: ProgressEvent) => void, signal?: AbortSignal): Promise<void> {
    this.access.require(ctx, 'tts:generate');
    const req = resolveRequest(raw, this.defaultProvider);
    const direct = computeHash('direct', req.text, req.options);
    const started = clock.nowMs();
    const spec = PROVIDER_CATALOGUE[req.options.provider];
    const chunks = progressiveChunks(req.text, Math.min(spec.maxCharsPerCall, PROGRESSIVE_CHUNK_CHARS));
    const streamUrl = streamUrlOf(direct);
    if (req.cache) {
      const hit = await this.findLive(ctx.em, direct);
      this.observer.cacheLookup(hit ? 'disk' : 'miss');
      if (hit) {
        // From the cache there are no separate chunks: the stream (and the file) is all of it at once.
        emit({ type: 'started', totalChunks: chunks.length, streamUrl });
        emit({ type: 'progress', completed: chunks.length, total: chunks.length, progress: 100 });
        emit(this.completeEvent(hit, chunks.length, clock.nowMs() - started, true));
        return;
      }
    }
    // Refused (429/503) before the stream opens, so the client gets a plain error answer.
    const release = await this.admit(ctx, req, direct);
    let completed = 0;
    let entry: AudioEntry;
    // The stream exists before `started` names it, so a client may open it at once.
    let live = this.lives.get(direct);
    if (!live || live.state !== 'live') {
      live = new LiveAudio(direct, req.options.format, chunks.length);
      this.lives.set(direct, live);
    }
    const ours = live;
    const total = live.totalChunks;
    const stopChunks = live.onChunk(({ index }) => {
      completed = index + 1;
      emit({
        type: 'progress',
        completed,
        total,
        progress: Math.round((completed / total) * 1000) / 10,
        chunkIndex: index,
        chunkAudioUrl: chunkUrlOf(direct, index),
      });
    });
    try {
      emit({ type: 'started', totalChunks: total, streamUrl });
      entry = await this.singleFlight(direct, req.cache, () => this.produce(req, direct, CHUNK_CONCURRENCY, { chunks, signal, live: ours }));
      if (ours.state === 'live') await this.finishFromFile(ours, entry);
    } catch (err) {
      this.endLive(ours, err);
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

  /** A stream that another generation answered (the audio came whole): it is given the stored file. */
  private async finishFromFile(live: LiveAudio, entry: AudioEntry) {
    const data = this.liveHot(entry.hash)?.data ?? (await this.deps.blobs.get(entry.blobKey));
    if (data) live.write(data);
    this.endLive(live);
  }

  /** Ends a live stream; a finished one keeps its chunk offsets a while, a failed one goes at once. */
  private endLive(live: LiveAudio, err?: unknown) {
    if (err !== undefined) {
      live.fail(err);
      if (this.lives.get(live.hash) === live) this.lives.delete(live.hash);
      return;
    }
    live.finish();
    const t = setTimeout(() => {
      if (this.lives.get(live.hash) === live) this.lives.delete(live.hash);
    }, LIVE_GRACE_MS);
    t.unref();
  }

  /**
   * `GET /audio/{hash}/stream`: the live stream while this instance makes the audio, else null (the
   * stored file is the stream then). Subscribe synchronously: it may finish at the next turn.
   */
  liveStream(ctx: DomainContext, hash: string): LiveAudio | null {
    this.access.require(ctx, 'tts:read');
    this.checkHashParam(hash);
    const live = this.lives.get(hash);
    return live && live.state === 'live' ? live : null;
  }

  /** `GET /audio/{hash}/chunks/{index}`: one chunk of a progressive generation, playable alone. */
  async chunkAudio(ctx: DomainContext, hash: string, index: string | number): Promise<{ data: Buffer; format: AudioFormat }> {
    this.access.require(ctx, 'tts:read');
    this.checkHashParam(hash);
    const i = typeof index === 'number' ? index : /^\d{1,6}$/.test(index) ? Number(index) : NaN;
    const live = this.lives.get(hash);
    const missing = () =>
      new DomainError('NOT_FOUND', `No chunk ${String(index).slice(0, 20)} of '${hash}' is available (chunk audio is kept while a progressive generation runs and ${LIVE_GRACE_MS / 60_000} minutes after)`, {
        details: { hash, chunk: String(index).slice(0, 20) },
      });
    if (!live || live.state === 'failed' || !Number.isInteger(i)) throw missing();
    const stored = live.state === 'done' ? (await this.getAudio(ctx, hash, { countAccess: false })).data : undefined;
    const data = await live.chunkFile(i, stored);
    if (!data) throw missing();
    return { data, format: live.format };
  }

  private completeEvent(entry: AudioEntry, chunks: number, elapsedMs: number, cached: boolean): ProgressEvent {
    return {
      type: 'complete',
      hash: entry.hash,
      audioUrl: AUDIO_URL_PREFIX + entry.hash,
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
        const done = await this.findLive(this.deps.rootEm.fork(), hash);
        if (done) return done;
      }
      return produce();
    }).finally(() => this.inflight.delete(hash));
    this.inflight.set(hash, p);
    return p;
  }

  private async produce(
    req: ResolvedRequest,
    direct: string,
    concurrency: number,
    progressive?: { chunks: string[]; signal?: AbortSignal; live: LiveAudio },
  ): Promise<AudioEntry> {
    const o = req.options;
    const provider = this.deps.providers[o.provider];
    const spec = PROVIDER_CATALOGUE[o.provider];
    const chunks = progressive?.chunks ?? (req.text.length <= spec.maxCharsPerCall ? [req.text] : chunkText(req.text, { maxChars: spec.maxCharsPerCall }));
    const estimate = this.deps.pricing.estimate(o.provider, o.quality, req.text);
    const call = { voice: o.voice, speed: o.speed, quality: o.quality, language: o.language, emotion: o.emotion, pitch: o.pitch };
    const signal = progressive?.signal ? AbortSignal.any([progressive.signal, this.shuttingDown.signal]) : this.shuttingDown.signal;
    const observer = this.observer;
    const upstream = async (request: Parameters<SpeechProvider['synthesize']>[0]) => {
      const began = clock.nowMs();
      try {
        const audio = await provider.synthesize(request, signal);
        observer.upstreamCall(o.provider, 'success', (clock.nowMs() - began) / 1000);
        return audio;
      } catch (err) {
        observer.upstreamCall(o.provider, 'error', (clock.nowMs() - began) / 1000);
        throw err;
      }
    };
    const upstreamStream = (request: Parameters<SpeechProvider['synthesize']>[0]) => {
      const began = clock.nowMs();
      const stream = provider.synthesizeStream!(request, signal);
      stream.whole.then(
        () => observer.upstreamCall(o.provider, 'success', (clock.nowMs() - began) / 1000),
        () => observer.upstreamCall(o.provider, 'error', (clock.nowMs() - began) / 1000),
      );
      return stream;
    };
    const startedAt = clock.nowMs();
    /** The file: its bytes, or where they were written as they were made (a long progressive encode). */
    let data: Buffer | { key: string; size: number };
    let duration: number;
    let sampleRate: number;
    let bitrate: number;
    // The content and semantic hashes (normalisation and spoken form of the whole text, ~10 ms for
    // 20,000 characters) are needed only to store the entry: computed once the provider calls are
    // under way, not before the first of them.
    let hashes: Record<HashMode, string> | undefined;
    const allHashes = () => (hashes ??= computeHashes(req.text, req.options));
    try {
      if (chunks.length === 1 && !progressive) {
        data = await upstream({ ...call, text: chunks[0], format: o.format });
        const checked = probe(data, o.format);
        if (!checked.ok) throw this.badAudio(o.provider, checked.reason);
        duration = checked.durationSeconds;
        sampleRate = 24000;
        bitrate = duration > 0 ? Math.round((data.length * 8) / duration) : 0;
      } else {
        const synthesize = async (text: string) => {
          const wav = await upstream({ ...call, text, format: 'wav' });
          const checked = probe(wav, 'wav');
          if (!checked.ok) throw this.badAudio(o.provider, checked.reason);
          return wav;
        };
        let joined: Omit<Awaited<ReturnType<typeof joinWavChunks>>, 'data'> & { data: typeof data };
        if (progressive) {
          // MP3/Ogg go to the stored file as they are encoded (and the stream reads back from it):
          // a long text is never whole in memory. WAV is gathered (its header's sizes come last).
          const writer = o.format !== 'wav' && this.deps.blobs.writer ? await this.deps.blobs.writer() : undefined;
          if (writer) progressive.live.attachSpool(writer);
          const encodeOpts = { quality: o.quality, encoder: this.deps.encoder };
          try {
            let live: Awaited<ReturnType<typeof joinWavChunksLive>>;
            if (provider.synthesizeStream) {
              // A vendor that streams: chunk 0 (the first sentence) is encoded as its samples arrive, so
              // the live stream's first bytes go out before the vendor has finished sending it. The other
              // chunks are made ahead and taken whole (a failure of theirs is still retried).
              const first = upstreamStream({ ...call, text: chunks[0], format: 'wav' });
              // Chunk 0's call holds one of the `concurrency` slots until its body ends.
              const ahead = aheadInOrder(chunks.slice(1), Math.max(1, concurrency - 1), CHUNK_LOOKAHEAD, synthesize);
              allHashes();
              live = await joinStreamedWavChunksLive(first, chunks.length, (i) => ahead.take(i - 1), o.format, encodeOpts, progressive.live).catch((err) => {
                throw err instanceof AudioDecodeError ? this.badAudio(o.provider, err.message) : err;
              });
            } else {
              // Encoded in order as the chunks come, each encoder output handed to the live stream at
              // once; chunk 0 (the first sentence) is asked for first, so the first audio comes early.
              const ahead = aheadInOrder(chunks, concurrency, CHUNK_LOOKAHEAD, synthesize);
              allHashes();
              live = await joinWavChunksLive(chunks.length, (i) => ahead.take(i), o.format, encodeOpts, progressive.live);
            }
            joined = { ...live, data: live.data ?? { key: await writer!.commit(), size: live.size } };
          } catch (err) {
            await writer?.abort().catch(() => undefined);
            throw err;
          }
        } else if (o.format === 'wav') {
          // The file is the samples themselves: all chunks are needed at once anyway.
          const generating = mapLimit(chunks, concurrency, synthesize);
          generating.catch(() => undefined); // awaited below; a failure must not surface as unhandled first
          allHashes();
          joined = await joinWavChunks(await generating, o.format, { quality: o.quality, encoder: this.deps.encoder });
        } else {
          // Encoded as the chunks come, in order, with chunks made at most CHUNK_LOOKAHEAD ahead of the
          // encoder: memory is that window plus the encoded file, not every chunk of a long text.
          const ahead = aheadInOrder(chunks, concurrency, CHUNK_LOOKAHEAD, synthesize);
          allHashes();
          joined = await joinWavChunksInOrder(chunks.length, (i) => ahead.take(i), o.format, { quality: o.quality, encoder: this.deps.encoder });
        }
        data = joined.data;
        duration = joined.durationSeconds;
        sampleRate = joined.sampleRate;
        bitrate = joined.bitrate;
      }
    } catch (err) {
      observer.generation(o.provider, 'error');
      await this.stats
        .record(o.provider, { characters: 0, cost: 0, latencyMs: clock.nowMs() - startedAt, error: true })
        .catch(() => undefined);
      throw err;
    }
    const latencyMs = clock.nowMs() - startedAt;
    observer.generation(o.provider, 'success');
    await this.stats.record(o.provider, { characters: estimate.characterCount, cost: estimate.cost, latencyMs, error: false });

    const blobKey = Buffer.isBuffer(data) ? blobKeyOf(data) : data.key;
    if (Buffer.isBuffer(data)) await this.deps.blobs.put(blobKey, data);
    const fileSize = Buffer.isBuffer(data) ? data.length : data.size;
    const now = clock.now();
    const em = this.deps.rootEm.fork();
    const fields = {
      contentHash: allHashes().content,
      semanticHash: allHashes().semantic,
      provider: o.provider,
      voice: o.voice,
      language: o.language,
      format: o.format,
      quality: o.quality,
      speed: o.speed,
      options: { ...o } as Record<string, unknown>,
      originalText: req.text,
      normalizedText: normalizeContent(req.text),
      duration: Math.round(duration * 1000) / 1000,
      fileSize,
      sampleRate,
      bitrate,
      blobKey,
      costAmount: estimate.cost,
      costCurrency: 'USD',
      charactersCharged: estimate.characterCount,
      requestMetadata: req.metadata ?? null,
      generatedAt: now,
      lastAccessedAt: now,
      expiresAt: req.ttlSeconds ? new Date(now.getTime() + req.ttlSeconds * 1000) : null,
    };
    let entry: AudioEntry;
    try {
      entry = await em.upsert(AudioEntry, { hash: direct, ...fields, accessCount: 0 }, {
        onConflictFields: ['hash'],
        onConflictMergeFields: Object.keys(fields) as any,
      });
    } catch (err) {
      // No file without its record: drop the bytes just written unless another entry shares them.
      await this.dropBlobIfUnused(em, blobKey).catch(() => undefined);
      throw err;
    }
    if (Buffer.isBuffer(data)) this.hot.set(entry.hash, { size: data.length, data, view: this.viewOf(entry) });
    // Stored: the stream's listeners end, and the file is what the stream URL serves from now on.
    if (progressive) this.endLive(progressive.live);
    return entry;
  }

  private async dropBlobIfUnused(em: EntityManager, blobKey: string) {
    if (!(await em.fork().count(AudioEntry, { blobKey }))) await this.deps.blobs.delete(blobKey);
  }

  private badAudio(provider: ProviderId, reason: string) {
    const code = provider === 'mock' ? 'MOCK_GENERATION_ERROR' : (`${provider.toUpperCase()}_GENERATION_ERROR` as const);
    return new DomainError(code as any, `${provider} returned unusable audio: ${reason}`, { provider, details: { reason } });
  }

  private toResponse(entry: AudioEntry, cached: boolean): GenerationResponse {
    return this.responseOf(this.viewOf(entry), cached);
  }

  private responseOf(v: AudioView, cached: boolean): GenerationResponse {
    return {
      hash: v.hash,
      audioUrl: AUDIO_URL_PREFIX + v.hash,
      cached,
      duration: v.duration,
      cost: v.cost,
      metadata: { provider: v.provider, voice: v.voice, generatedAt: v.generatedAt, fileSize: v.fileSize, format: v.format },
    };
  }

  // ---- retrieval ------------------------------------------------------------------------------

  private viewOf(e: AudioEntry): AudioView {
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

  /** The hot-tier item of `hash` unless it has expired (an expired one is dropped). */
  private liveHot(hash: string): HotItem | undefined {
    const hot = this.hot.get(hash);
    if (!hot) return undefined;
    if (hot.view.expiresAt === null || hot.view.expiresAt > clock.nowMs()) return hot;
    this.hot.delete(hash);
    return undefined;
  }

  private async findLive(em: EntityManager, hash: string, by: HashMode = 'direct'): Promise<AudioEntry | null> {
    const where =
      by === 'direct' ? { hash } : by === 'content' ? { contentHash: hash } : { semanticHash: hash };
    const entry = await em.findOne(AudioEntry, { ...where, $or: [{ expiresAt: null }, { expiresAt: { $gt: clock.now() } }] }, {
      orderBy: { generatedAt: 'desc' },
    });
    return entry;
  }

  private checkHashParam(hash: string) {
    if (!HASH_PARAM.test(hash)) {
      throw new DomainError('VALIDATION_ERROR', 'hash must be 64 lowercase hexadecimal characters', {
        fields: [{ field: 'hash', message: 'must be 64 lowercase hexadecimal characters' }],
        details: { hash: hash.slice(0, 100) },
      });
    }
  }

  /**
   * The bytes of one audio file. The hot tier answers without touching the database; otherwise
   * the entry is read and the blob fetched (and integrity-checked). A damaged blob is dropped and
   * reported as absent rather than served.
   */
  async getAudio(ctx: DomainContext, hash: string, opts: { countAccess?: boolean } = {}): Promise<AudioFile> {
    this.access.require(ctx, 'tts:read');
    this.checkHashParam(hash);
    const hot = this.liveHot(hash);
    if (hot) {
      if (opts.countAccess !== false) this.accesses.record(hash);
      return { data: hot.data, view: hot.view, tier: 'memory' };
    }
    const entry = await this.findLive(ctx.em, hash);
    if (!entry) throw this.audioNotFound(hash);
    let data: Buffer | null;
    try {
      data = await this.deps.blobs.get(entry.blobKey);
    } catch (err) {
      if (!(err instanceof CorruptBlobError)) throw err;
      await this.dropDamagedBlob(ctx.em, entry.blobKey);
      throw new DomainError('NOT_FOUND', `Audio '${hash}' was damaged in storage and has been removed; generate it again`, {
        details: { hash, reason: 'integrity-check-failed' },
      });
    }
    if (!data) {
      // The file is gone (removed by hand, lost with a volume): as damaged, for every entry sharing it.
      await this.dropDamagedBlob(ctx.em, entry.blobKey);
      throw this.audioNotFound(hash);
    }
    const view = this.viewOf(entry);
    this.hot.set(hash, { size: data.length, data, view });
    if (opts.countAccess !== false) this.accesses.record(hash);
    return { data, view, tier: 'storage' };
  }

  /**
   * A damaged file is gone for every entry that points at it (blobs are content-addressed and
   * shared): all of them are removed, here and from every instance's hot tier, so the next request
   * for any of them generates again instead of answering `cached: true` with a dead URL.
   */
  private async dropDamagedBlob(em: EntityManager, blobKey: string) {
    const sharing = await em.find(AudioEntry, { blobKey }, { fields: ['hash'] });
    await em.nativeDelete(AudioEntry, { blobKey });
    await this.deps.blobs.delete(blobKey).catch(() => undefined);
    this.invalidate(sharing.map((e) => e.hash));
  }

  private audioNotFound(hash: string) {
    return new DomainError('NOT_FOUND', `No audio with hash '${hash}'`, { details: { hash } });
  }

  async getMetadata(ctx: DomainContext, hash: string) {
    this.access.require(ctx, 'tts:read');
    this.checkHashParam(hash);
    await this.accesses.settled();
    const e = await this.findLive(ctx.em, hash);
    if (!e) throw this.audioNotFound(hash);
    const pending = this.accesses.pendingFor(hash);
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

  // ---- estimates, catalogue, hashes ------------------------------------------------------------

  async estimate(ctx: DomainContext, raw: unknown) {
    this.access.require(ctx, 'tts:generate');
    const req = resolveRequest(raw, this.defaultProvider);
    const e = this.deps.pricing.estimate(req.options.provider, req.options.quality, req.text);
    return { cost: e.cost, characterCount: e.characterCount, currency: e.currency, provider: req.options.provider, quality: req.options.quality };
  }

  listProviders(ctx: DomainContext) {
    this.access.require(ctx, 'tts:read');
    return {
      providers: PROVIDER_IDS.map((id) => {
        const s = PROVIDER_CATALOGUE[id];
        return {
          name: id,
          displayName: s.displayName,
          configured: this.deps.providers[id].isConfigured(),
          voices: [...s.voices],
          languages: [...s.languages],
          formats: ['mp3', 'wav', 'ogg'],
          speed: { min: s.speed[0], max: s.speed[1] },
          qualities: [...s.qualities],
          default: id === this.defaultProvider,
        };
      }),
    };
  }

  private providerFilter(provider: unknown): ProviderId[] {
    if (provider === undefined || provider === null || provider === '') return [...PROVIDER_IDS];
    if (typeof provider !== 'string' || !isProviderId(provider)) {
      throw new DomainError('INVALID_PROVIDER', `Unknown provider '${String(provider).slice(0, 40)}'`, {
        details: { provider: String(provider).slice(0, 40), supportedProviders: PROVIDER_IDS },
        fields: [{ field: 'provider', message: `must be one of ${PROVIDER_IDS.join(', ')}` }],
      });
    }
    return [provider];
  }

  listVoices(ctx: DomainContext, provider?: unknown) {
    this.access.require(ctx, 'tts:read');
    return { voices: this.providerFilter(provider).flatMap((p) => PROVIDER_CATALOGUE[p].voices) };
  }

  listLanguages(ctx: DomainContext, provider?: unknown) {
    this.access.require(ctx, 'tts:read');
    const langs = new Set(this.providerFilter(provider).flatMap((p) => PROVIDER_CATALOGUE[p].languages));
    return { languages: [...langs] };
  }

  private resolveForHash(raw: { text: string; options?: unknown }) {
    return resolveRequest({ text: raw.text, options: raw.options }, this.defaultProvider);
  }

  hashInfo(ctx: DomainContext, raw: unknown) {
    this.access.require(ctx, 'tts:generate');
    const input = parseInput(HashRequestSchema, raw);
    const req = this.resolveForHash(input);
    return { hashes: computeHashes(req.text, req.options), text: { original: req.text, length: [...req.text].length } };
  }

  async hashLookup(ctx: DomainContext, raw: unknown) {
    this.access.require(ctx, 'tts:generate');
    const input = parseInput(HashLookupSchema, raw);
    const req = this.resolveForHash(input);
    const hashes = computeHashes(req.text, req.options);
    const modes: HashMode[] = input.allowFallback ? [input.hashMode, ...HASH_MODES.filter((m) => m !== input.hashMode)] : [input.hashMode];
    for (const mode of modes) {
      const e = await this.findLive(ctx.em, hashes[mode], mode);
      if (e) {
        return {
          found: true as const,
          hash: e.hash,
          mode,
          // Exact text matches are certain; normalised and spoken-form matches only sound alike.
          confidence: mode === 'direct' ? 1 : mode === 'content' ? 0.95 : 0.85,
          audioUrl: AUDIO_URL_PREFIX + e.hash,
          metadata: { provider: e.provider, voice: e.voice, duration: e.duration, fileSize: e.fileSize, generatedAt: e.generatedAt.toISOString() },
        };
      }
    }
    return {
      found: false as const,
      hashes,
      message: input.allowFallback ? 'No cached audio under any hash mode' : `No cached audio under the ${input.hashMode} hash`,
    };
  }

  async hashExists(ctx: DomainContext, raw: unknown) {
    this.access.require(ctx, 'tts:generate');
    const input = parseInput(HashExistsSchema, raw);
    const req = this.resolveForHash(input);
    const hashes = computeHashes(req.text, req.options);
    const e = await this.findLive(ctx.em, hashes[input.hashMode], input.hashMode);
    return { exists: !!e, hashMode: input.hashMode, hashes };
  }

  // ---- administration -------------------------------------------------------------------------

  async deleteCacheEntry(ctx: DomainContext, hash: string) {
    this.access.require(ctx, 'tts:admin');
    this.checkHashParam(hash);
    const e = await ctx.em.findOne(AudioEntry, { hash });
    if (!e) return { deleted: false };
    await ctx.em.nativeDelete(AudioEntry, { hash });
    // Blobs are content-addressed and may be shared by several entries: keep those still in use.
    const stillUsed = await ctx.em.count(AudioEntry, { blobKey: e.blobKey });
    if (!stillUsed) await this.deps.blobs.delete(e.blobKey);
    this.invalidate([hash]);
    return { deleted: true };
  }

  async cacheStats(ctx: DomainContext) {
    this.access.require(ctx, 'tts:admin');
    const rows = await ctx.em
      .getConnection()
      .execute<any[]>(
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
      memoryTier: this.hot.size,
      storage: this.deps.blobs.kind,
    };
  }

  async clearCache(ctx: DomainContext) {
    this.access.require(ctx, 'tts:admin');
    const n = await ctx.em.nativeDelete(AudioEntry, {});
    await this.deps.blobs.clear();
    this.invalidate('all');
    return { message: `Cache cleared: ${n} entries removed` };
  }

  /** Drops entries from this instance's hot tier (and, through the hook, from every other instance's). */
  invalidate(hashes: string[] | 'all', propagate = true) {
    if (hashes === 'all') this.hot.clear();
    else hashes.forEach((h) => this.hot.delete(h));
    if (propagate) this.deps.onCacheInvalidated?.(hashes);
  }

  /** Removes expired entries; run periodically. */
  async sweepExpired(): Promise<number> {
    const em = this.deps.rootEm.fork();
    const expired = await em.find(AudioEntry, { expiresAt: { $lte: clock.now() } }, { fields: ['hash', 'blobKey'], limit: 500 });
    if (!expired.length) return 0;
    await em.nativeDelete(AudioEntry, { hash: { $in: expired.map((e) => e.hash) } });
    for (const e of expired) {
      const used = await em.count(AudioEntry, { blobKey: e.blobKey });
      if (!used) await this.deps.blobs.delete(e.blobKey).catch(() => undefined);
    }
    this.invalidate(expired.map((e) => e.hash));
    return expired.length;
  }

  async providerStats(ctx: DomainContext) {
    this.access.require(ctx, 'tts:read');
    return { stats: await this.stats.read(), latencyUnit: 'ms' };
  }
}

export { GenerationRequestSchema };

function hasWebhook(raw: unknown): boolean {
  return !!raw && typeof raw === 'object' && !Array.isArray(raw) && (raw as Record<string, unknown>).webhook !== undefined;
}
