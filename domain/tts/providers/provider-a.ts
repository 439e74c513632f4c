import type { AudioFormat } from '../catalogue';
import { UpstreamClient, type AudioRequest, type UpstreamReporting } from './http-client';
import type { SpeechProvider, SpeechStream, SynthesisRequest } from './provider';
import type { ResilienceOptions } from './resilience';
import { requireAudio, requireAudioHead } from './upstream-audio';

export interface ProviderASettings extends UpstreamReporting {
  apiKey: string;
  /** Default https://api.openai.com */
  baseUrl: string;
  resilience: ResilienceOptions;
}

/** What we ask for, per target format. Ogg is Opus-in-Ogg: the vendor has no Vorbis output. */
const RESPONSE_FORMAT: Record<AudioFormat, 'mp3' | 'wav' | 'opus'> = { mp3: 'mp3', wav: 'wav', ogg: 'opus' };
const VENDOR_SPEED: readonly [number, number] = [0.25, 4.0];

/**
 * OpenAI-style speech endpoint (`POST /v1/audio/speech`). The model detects the language from
 * the text, so `language` is not sent; quality `high` selects the HD model.
 */
export class ProviderA implements SpeechProvider {
  readonly id = 'provider_a' as const;
  readonly client: UpstreamClient;

  constructor(private readonly settings: ProviderASettings) {
    this.client = new UpstreamClient({
      provider: this.id,
      baseUrl: settings.baseUrl,
      credentialVariable: 'PROVIDER_A_API_KEY',
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
    return this.client.postForAudio(this.request(req), signal);
  }

  /** The vendor streams its body (WAV with unknown-length sizes): handed on as it comes. */
  synthesizeStream(req: SynthesisRequest, signal?: AbortSignal): SpeechStream {
    return this.client.streamAudio(this.request(req), signal);
  }

  private request(req: SynthesisRequest): AudioRequest {
    return {
      path: '/v1/audio/speech',
      headers: { Authorization: `Bearer ${this.settings.apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(providerABody(req)),
      accept: (body) => requireAudio(body, req.format),
      acceptHead: (head) => requireAudioHead(head, req.format),
    };
  }
}

/** The vendor's model: `gpt-4o-mini-tts` when there are instructions (the tts-1 models take none), else by quality. */
export function providerABody(req: SynthesisRequest) {
  return {
    model: req.instructions !== undefined ? 'gpt-4o-mini-tts' : req.quality === 'high' ? 'tts-1-hd' : 'tts-1',
    input: req.text,
    voice: req.voice,
    response_format: RESPONSE_FORMAT[req.format],
    speed: Math.min(VENDOR_SPEED[1], Math.max(VENDOR_SPEED[0], req.speed)),
    ...(req.instructions !== undefined ? { instructions: req.instructions } : {}),
  };
}
