import { setImmediate as yieldToEventLoop, setTimeout as sleep } from 'node:timers/promises';
import { encode, synthesizeSpeechLike } from '../audio';
import type { AudioWorkerPool } from '../audio-workers';
import type { SpeechProvider, SynthesisRequest } from './provider';

/** The built-in provider: real, decodable, deterministic audio without any network. */
export class MockProvider implements SpeechProvider {
  readonly id = 'mock' as const;

  /** With `workers`, the synthesis and its encoding run on them, off the event loop. */
  constructor(
    private readonly latencyMs = 0,
    private readonly workers?: AudioWorkerPool,
  ) {}

  isConfigured() {
    return true;
  }

  async synthesize(req: SynthesisRequest, signal?: AbortSignal): Promise<Buffer> {
    if (this.latencyMs > 0) await sleep(this.latencyMs, undefined, { signal });
    if (this.workers) {
      return this.workers.synthesize({ text: req.text, voice: req.voice, speed: req.speed, pitch: req.pitch, format: req.format, quality: req.quality });
    }
    // Synthesis is CPU work: let pending I/O (other requests, SSE writes) run between chunks. After a
    // sleep too: calls started together wake in the same tick, and a real vendor's answers would
    // arrive as separate I/O events, each handled (and reported) before the next is synthesised.
    await yieldToEventLoop();
    const pcm = synthesizeSpeechLike({ text: req.text, voice: req.voice, speed: req.speed, pitch: req.pitch });
    const { data } = await encode(pcm, req.format, { quality: req.quality });
    return data;
  }
}
