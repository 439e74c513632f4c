import type { AudioFormat, Quality } from '../catalogue';
import { UpstreamClient, type AudioRequest, type UpstreamReporting } from './http-client';
import type { SpeechProvider, SpeechStream, SynthesisRequest } from './provider';
import type { ResilienceOptions } from './resilience';
import { requireAudio, requireAudioHead } from './upstream-audio';

export interface ProviderCSettings extends UpstreamReporting {
  apiKey: string;
  /** `https://<region>.tts.speech.microsoft.com` unless set explicitly. */
  baseUrl: string;
  resilience: ResilienceOptions;
}

/** Pitch the vendor renders without artefacts; our −50..50 semitones are clamped to it. */
export const PROVIDER_C_PITCH_LIMIT_ST = 12;
/** Vendor rate limits: half to double speed, as a relative percentage. */
const RATE_PERCENT: readonly [number, number] = [-50, 100];

export function providerCOutputFormat(format: AudioFormat, quality: Quality): string {
  switch (format) {
    case 'wav':
      return 'riff-24khz-16bit-mono-pcm';
    case 'ogg':
      return 'ogg-24khz-16bit-mono-opus';
    default:
      return quality === 'high' ? 'audio-24khz-96kbitrate-mono-mp3' : 'audio-24khz-48kbitrate-mono-mp3';
  }
}

/** Escapes the five XML special characters and drops characters XML 1.0 forbids (they make the vendor answer 400). */
export function escapeXml(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, ' ')
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

const signed = (n: number) => (n >= 0 ? `+${n}` : `${n}`);

/** speed → relative rate `(speed − 1) × 100 %`, whole percent, clamped to −50 %..+100 %. */
export function providerCRate(speed: number): number {
  return Math.max(RATE_PERCENT[0], Math.min(RATE_PERCENT[1], Math.round((speed - 1) * 100))) || 0;
}

/** pitch (semitones) → relative semitones, clamped to ±12 st, one decimal. */
export function providerCPitch(pitch = 0): number {
  const clamped = Math.max(-PROVIDER_C_PITCH_LIMIT_ST, Math.min(PROVIDER_C_PITCH_LIMIT_ST, pitch));
  return Math.round(clamped * 10) / 10 || 0;
}

export function providerCSsml(req: SynthesisRequest): string {
  const rate = providerCRate(req.speed);
  const pitch = providerCPitch(req.pitch);
  const text = escapeXml(req.text);
  // Neutral prosody is left out so the vendor applies the voice's own defaults.
  const prosodyAttrs = [rate !== 0 ? `rate='${signed(rate)}%'` : '', pitch !== 0 ? `pitch='${signed(pitch)}st'` : ''].filter(Boolean).join(' ');
  const spoken = prosodyAttrs ? `<prosody ${prosodyAttrs}>${text}</prosody>` : text;
  return (
    `<speak version='1.0' xmlns='http://www.w3.org/2001/10/synthesis' xml:lang='${escapeXml(req.language)}'>` +
    `<voice name='${escapeXml(req.voice)}'>${spoken}</voice></speak>`
  );
}

/** Azure-style Speech REST endpoint (`POST /cognitiveservices/v1`, SSML in, audio out). */
export class ProviderC implements SpeechProvider {
  readonly id = 'provider_c' as const;
  readonly client: UpstreamClient;

  constructor(private readonly settings: ProviderCSettings) {
    this.client = new UpstreamClient({
      provider: this.id,
      baseUrl: settings.baseUrl,
      credentialVariable: 'PROVIDER_C_API_KEY',
      secrets: [settings.apiKey, ...(settings.secrets ?? [])],
      onFailure: settings.onFailure,
      policy: settings.policy,
      resilience: settings.resilience,
      userAgent: 'tts-gateway',
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

  /** The vendor sends audio as it is made (chunked): handed on as it comes. */
  synthesizeStream(req: SynthesisRequest, signal?: AbortSignal): SpeechStream {
    return this.client.streamAudio(this.request(req), signal);
  }

  private request(req: SynthesisRequest): AudioRequest {
    return {
      path: '/cognitiveservices/v1',
      headers: {
        'Ocp-Apim-Subscription-Key': this.settings.apiKey,
        'Content-Type': 'application/ssml+xml',
        'X-Microsoft-OutputFormat': providerCOutputFormat(req.format, req.quality),
      },
      body: providerCSsml(req),
      accept: (body) => requireAudio(body, req.format),
      acceptHead: (head) => requireAudioHead(head, req.format),
    };
  }
}
