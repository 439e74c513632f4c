// Makes one audio file: provider calls (chunked, bounded, streamed when the vendor streams), one encode, then the entry and blob stored.
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, type ErrorCode } from '../errors';
import { clock } from '../clock';
import { aheadInOrder, mapLimit } from '../util/concurrency';
import { AudioDecodeError, joinWavChunks, joinWavChunksInOrder, joinWavChunksLive, probe, type OpenEncoder } from './audio';
import { joinStreamedWavChunksLive } from './streamed-wav';
import { AudioEntry } from './audio-entry.entity';
import { blobKeyOf } from './cache/blob-store';
import { PROVIDER_CATALOGUE, type ProviderId } from './catalogue';
import type { LiveAudio } from './live-audio';
import type { LiveStreams } from './live-streams';
import type { MemoryTier } from './memory-tier';
import type { TtsObserver } from './observer';
import type { Pricing } from './pricing';
import type { SpeechProvider } from './providers/provider';
import type { ResolvedRequest } from './request';
import type { ProviderStatsRecorder } from './stats';
import type { StoredAudio } from './stored-audio';
import { chunkText, computeHashes, normalizeContent, type HashMode } from './text';

/** A progressive generation's part: its chunks as announced, the caller's signal, and its live stream. */
export interface ProgressiveOutput {
  chunks: string[];
  signal?: AbortSignal;
  live: LiveAudio;
}

export class AudioProducer {
  /** Aborted on shutdown, so in-flight upstream calls end instead of outliving the database. */
  private readonly shuttingDown = new AbortController();

  constructor(
    private readonly deps: {
      rootEm: EntityManager;
      providers: Record<ProviderId, SpeechProvider>;
      pricing: Pricing;
      stats: ProviderStatsRecorder;
      observer: TtsObserver;
      stored: StoredAudio;
      tier: MemoryTier;
      lives: LiveStreams;
      /** Where joined MP3/Ogg audio is encoded (the audio worker pool's, off the event loop); this thread when absent. */
      encoder?: OpenEncoder;
    },
  ) {}

  /** Whether the service is shutting down (a job interrupted by it is left for another instance). */
  get closing(): boolean {
    return this.shuttingDown.signal.aborted;
  }

  close(): void {
    this.shuttingDown.abort(new Error('The server is shutting down'));
  }

  async produce(req: ResolvedRequest, direct: string, concurrency: number, progressive?: ProgressiveOutput): Promise<AudioEntry> {
    const o = req.options;
    const { observer, stored } = this.deps;
    const blobs = stored.blobs;
    const provider = this.deps.providers[o.provider];
    const spec = PROVIDER_CATALOGUE[o.provider];
    const chunks = progressive?.chunks ?? (req.text.length <= spec.maxCharsPerCall ? [req.text] : chunkText(req.text, { maxChars: spec.maxCharsPerCall }));
    const estimate = this.deps.pricing.estimate(o.provider, o.quality, req.text);
    const call = { voice: o.voice, speed: o.speed, quality: o.quality, language: o.language, emotion: o.emotion, pitch: o.pitch, instructions: o.instructions };
    const signal = progressive?.signal ? AbortSignal.any([progressive.signal, this.shuttingDown.signal]) : this.shuttingDown.signal;
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
        if (!checked.ok) throw badAudio(o.provider, checked.reason);
        duration = checked.durationSeconds;
        sampleRate = 24000;
        bitrate = duration > 0 ? Math.round((data.length * 8) / duration) : 0;
      } else {
        const synthesize = async (text: string) => {
          const wav = await upstream({ ...call, text, format: 'wav' });
          const checked = probe(wav, 'wav');
          if (!checked.ok) throw badAudio(o.provider, checked.reason);
          return wav;
        };
        let joined: Omit<Awaited<ReturnType<typeof joinWavChunks>>, 'data'> & { data: typeof data };
        if (progressive) {
          // MP3/Ogg go to the stored file as they are encoded (and the stream reads back from it):
          // a long text is never whole in memory. WAV is gathered (its header's sizes come last).
          const writer = o.format !== 'wav' && blobs.writer ? await blobs.writer() : undefined;
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
              const ahead = aheadInOrder(chunks.slice(1), Math.max(1, concurrency - 1), concurrency, synthesize);
              allHashes();
              live = await joinStreamedWavChunksLive(first, chunks.length, (i) => ahead.take(i - 1), o.format, encodeOpts, progressive.live).catch((err) => {
                throw err instanceof AudioDecodeError ? badAudio(o.provider, err.message) : err;
              });
            } else {
              // Encoded in order as the chunks come, each encoder output handed to the live stream at
              // once; chunk 0 (the first sentence) is asked for first, so the first audio comes early.
              const ahead = aheadInOrder(chunks, concurrency, concurrency, synthesize);
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
          // Encoded as the chunks come, in order, with chunks made at most `concurrency` ahead of the
          // encoder: memory is that window plus the encoded file, not every chunk of a long text.
          const ahead = aheadInOrder(chunks, concurrency, concurrency, synthesize);
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
      await this.deps.stats.record(o.provider, { characters: 0, cost: 0, latencyMs: clock.nowMs() - startedAt, error: true }).catch(() => undefined);
      throw err;
    }
    const latencyMs = clock.nowMs() - startedAt;
    observer.generation(o.provider, 'success');
    await this.deps.stats.record(o.provider, { characters: estimate.characterCount, cost: estimate.cost, latencyMs, error: false });

    const blobKey = Buffer.isBuffer(data) ? blobKeyOf(data) : data.key;
    if (Buffer.isBuffer(data)) await blobs.put(blobKey, data);
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
      entry = await em.upsert(
        AudioEntry,
        { hash: direct, ...fields, accessCount: 0 },
        {
          onConflictFields: ['hash'],
          onConflictMergeFields: Object.keys(fields) as (keyof typeof fields)[],
        },
      );
    } catch (err) {
      // No file without its record: drop the bytes just written unless another entry shares them.
      await stored.dropBlobIfUnused(em.fork(), blobKey).catch(() => undefined);
      throw err;
    }
    if (Buffer.isBuffer(data)) this.deps.tier.set(entry.hash, data, stored.viewOf(entry));
    // Stored: the stream's listeners end, and the file is what the stream URL serves from now on.
    if (progressive) this.deps.lives.end(progressive.live);
    return entry;
  }
}

function badAudio(provider: ProviderId, reason: string) {
  const code = provider === 'mock' ? 'MOCK_GENERATION_ERROR' : (`${provider.toUpperCase()}_GENERATION_ERROR` as const);
  return new DomainError(code as ErrorCode, `${provider} returned unusable audio: ${reason}`, { provider, details: { reason } });
}
