import { DomainError } from '../../errors';
import { transcode } from '../audio';
import type { AudioFormat } from '../catalogue';
import { GENERATION_ERROR_CODE, UpstreamClient, type AudioRequest, type UpstreamReporting } from './http-client';
import { wholeAsStream, type SpeechProvider, type SpeechStream, type SynthesisRequest } from './provider';
import type { ResilienceOptions } from './resilience';
import { requireAudio, requireAudioHead } from './upstream-audio';

export interface ProviderBSettings extends UpstreamReporting {
  apiKey: string;
  /** Default https://api.cartesia.ai */
  baseUrl: string;
  resilience: ResilienceOptions;
  /** Our voice names → the vendor's voice ids; a name without an entry is sent as is. */
  voiceIds?: Record<string, string>;
}

export const PROVIDER_B_API_VERSION = '2024-06-10';
export const PROVIDER_B_MODEL = 'sonic-2';
const SAMPLE_RATE = 24000;

/**
 * Our speed multiplier (0.5–2.0, 1 = normal) → the vendor's numeric control (−1..1, 0 = normal):
 * log2, so halving and doubling are symmetric and 1.0 stays neutral; clamped to the vendor range.
 */
export function providerBSpeed(speed: number): number {
  const control = Math.max(-1, Math.min(1, Math.log2(speed)));
  return Math.round(control * 1000) / 1000 || 0;
}

/** Intensity bands of |value| → the vendor's level suffix ('' is its default, moderate level). */
function level(magnitude: number): string | null {
  if (magnitude < 0.1) return null;
  if (magnitude < 0.3) return ':lowest';
  if (magnitude < 0.5) return ':low';
  if (magnitude < 0.7) return '';
  if (magnitude < 0.9) return ':high';
  return ':highest';
}

/**
 * Our emotion axes (−1..1) → the vendor's additive emotion tags (`name:level`). The vendor only
 * adds emotions, so the negative side of an axis needs its own name: positivity > 0 → positivity,
 * positivity < 0 → sadness; energy > 0 → surprise. Low energy has no vendor counterpart and is
 * not sent. Values under 0.1 in magnitude are neutral.
 */
export function providerBEmotions(emotion?: { positivity?: number; energy?: number }): string[] {
  const tags: string[] = [];
  const add = (name: string, value: number) => {
    const suffix = level(Math.abs(value));
    if (suffix !== null) tags.push(name + suffix);
  };
  const positivity = emotion?.positivity ?? 0;
  const energy = emotion?.energy ?? 0;
  if (positivity > 0) add('positivity', positivity);
  if (positivity < 0) add('sadness', positivity);
  if (energy > 0) add('surprise', energy);
  return tags;
}

/** The vendor has no Ogg output: Ogg is made here from its WAV. */
function outputFormat(format: AudioFormat) {
  return format === 'mp3'
    ? { container: 'mp3', sample_rate: SAMPLE_RATE, bit_rate: 128_000 }
    : { container: 'wav', sample_rate: SAMPLE_RATE, encoding: 'pcm_s16le' };
}

/** Cartesia-style bytes endpoint (`POST /tts/bytes`). */
export class ProviderB implements SpeechProvider {
  readonly id = 'provider_b' as const;
  readonly client: UpstreamClient;

  constructor(private readonly settings: ProviderBSettings) {
    this.client = new UpstreamClient({
      provider: this.id,
      baseUrl: settings.baseUrl,
      credentialVariable: 'PROVIDER_B_API_KEY',
      secrets: [settings.apiKey, ...(settings.secrets ?? [])],
      onFailure: settings.onFailure,
      policy: settings.policy,
      resilience: settings.resilience,
    });
  }

  isConfigured() {
    return true;
  }

  circuitState() {
    return this.client.breaker.state;
  }

  async synthesize(req: SynthesisRequest, signal?: AbortSignal): Promise<Buffer> {
    const audio = await this.client.postForAudio(this.request(req), signal);
    return req.format === 'ogg' ? this.toOgg(audio, req) : audio;
  }

  /**
   * The vendor streams its bytes endpoint: MP3 and WAV are handed on as they come. Ogg is made here
   * from the whole WAV, so it comes in one piece at the end.
   */
  synthesizeStream(req: SynthesisRequest, signal?: AbortSignal): SpeechStream {
    if (req.format !== 'ogg') return this.client.streamAudio(this.request(req), signal);
    return wholeAsStream(this.synthesize(req, signal));
  }

  private request(req: SynthesisRequest): AudioRequest {
    const container: AudioFormat = req.format === 'mp3' ? 'mp3' : 'wav';
    return {
      path: '/tts/bytes',
      headers: {
        'X-API-Key': this.settings.apiKey,
        'Cartesia-Version': PROVIDER_B_API_VERSION,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify(providerBBody(req, this.settings.voiceIds)),
      accept: (body) => requireAudio(body, container),
      acceptHead: (head) => requireAudioHead(head, container),
    };
  }

  private async toOgg(audio: Buffer, req: SynthesisRequest): Promise<Buffer> {
    try {
      return (await transcode(audio, 'wav', 'ogg', { quality: req.quality })).data;
    } catch (err) {
      throw new DomainError(GENERATION_ERROR_CODE.provider_b, `provider_b audio could not be converted to ogg: ${(err as Error).message}`, {
        provider: this.id,
        details: { upstreamStatus: 200, attempts: 1, reason: 'invalid-audio' },
        cause: err,
      });
    }
  }
}

export function providerBBody(req: SynthesisRequest, voiceIds: Record<string, string> = {}) {
  return {
    model_id: PROVIDER_B_MODEL,
    transcript: req.text,
    voice: {
      mode: 'id',
      id: voiceIds[req.voice] ?? req.voice,
      __experimental_controls: { speed: providerBSpeed(req.speed), emotion: providerBEmotions(req.emotion) },
    },
    output_format: outputFormat(req.format),
    // The vendor takes bare ISO 639-1 codes.
    language: req.language.split('-')[0].toLowerCase(),
  };
}
