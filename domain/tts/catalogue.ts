/** What each provider offers: the table of the TTS spec, plus the defaults the spec leaves open. */
export type ProviderId = 'provider_a' | 'provider_b' | 'provider_c' | 'mock';
export const PROVIDER_IDS: readonly ProviderId[] = ['provider_a', 'provider_b', 'provider_c', 'mock'];
export type AudioFormat = 'mp3' | 'wav' | 'ogg';
export const AUDIO_FORMATS: readonly AudioFormat[] = ['mp3', 'wav', 'ogg'];
export type Quality = 'low' | 'medium' | 'high' | 'standard';
export const QUALITIES: readonly Quality[] = ['low', 'medium', 'high', 'standard'];

export interface ProviderSpec {
  id: ProviderId;
  displayName: string;
  voices: readonly string[];
  speed: readonly [number, number];
  qualities: readonly Quality[];
  defaultQuality: Quality;
  languages: readonly string[];
  defaultLanguage: string;
  /** Longest text one upstream call accepts; longer text is split and joined. */
  maxCharsPerCall: number;
  supportsEmotion: boolean;
  supportsPitch: boolean;
  /** Takes `instructions` (how to speak): provider_a's OpenAI-style API, with its `gpt-4o-mini-tts` model. */
  supportsInstructions: boolean;
}

const COMMON_LANGS = ['en', 'es', 'fr', 'de', 'it', 'pt', 'ru', 'zh', 'ja', 'ko'] as const;

export const PROVIDER_CATALOGUE: Record<ProviderId, ProviderSpec> = {
  provider_a: {
    id: 'provider_a',
    displayName: 'Provider A',
    voices: ['alloy', 'echo', 'fable', 'onyx', 'nova', 'shimmer', 'coral'],
    speed: [0.25, 4.0],
    qualities: ['standard', 'high'],
    defaultQuality: 'standard',
    languages: COMMON_LANGS,
    defaultLanguage: 'en',
    maxCharsPerCall: 4096,
    supportsEmotion: false,
    supportsPitch: false,
    supportsInstructions: true,
  },
  provider_b: {
    id: 'provider_b',
    displayName: 'Provider B',
    voices: ['barbershop-man', 'broadway-diva', 'confident-british-man'],
    speed: [0.5, 2.0],
    qualities: ['low', 'medium', 'high'],
    defaultQuality: 'medium',
    languages: ['en', 'es', 'fr', 'de', 'pt', 'zh', 'ja', 'hi'],
    defaultLanguage: 'en',
    maxCharsPerCall: 2000,
    supportsEmotion: true,
    supportsPitch: false,
    supportsInstructions: false,
  },
  provider_c: {
    id: 'provider_c',
    displayName: 'Provider C',
    voices: ['en-US-JennyNeural', 'en-US-GuyNeural', 'en-GB-SoniaNeural'],
    speed: [0.5, 2.0],
    qualities: ['low', 'medium', 'high'],
    defaultQuality: 'medium',
    languages: ['en-US', 'en-GB'],
    defaultLanguage: 'en-US',
    maxCharsPerCall: 3000,
    supportsEmotion: false,
    supportsPitch: true,
    supportsInstructions: false,
  },
  mock: {
    id: 'mock',
    displayName: 'Mock (built-in test provider)',
    voices: ['mock-voice-1', 'mock-voice-2', 'mock-voice-3'],
    speed: [0.25, 4.0],
    qualities: ['low', 'medium', 'high'],
    defaultQuality: 'medium',
    languages: COMMON_LANGS,
    defaultLanguage: 'en',
    maxCharsPerCall: 1000,
    supportsEmotion: true,
    supportsPitch: true,
    supportsInstructions: false,
  },
};

export function isProviderId(p: string): p is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(p);
}

/**
 * A language is accepted when listed, or when its base (`en` of `en-US`) is listed for providers
 * that list bare codes. Returned in canonical case (`en-US`).
 */
export function matchLanguage(spec: ProviderSpec, language: string): string | null {
  const m = /^([a-zA-Z]{2,3})(?:[-_]([a-zA-Z]{2}|\d{3}))?$/.exec(language.trim());
  if (!m) return null;
  const canonical = m[2] ? `${m[1].toLowerCase()}-${m[2].toUpperCase()}` : m[1].toLowerCase();
  if (spec.languages.includes(canonical)) return canonical;
  if (m[2] && spec.languages.includes(m[1].toLowerCase())) return canonical;
  if (!m[2]) {
    const regional = spec.languages.find((l) => l.startsWith(`${canonical}-`));
    if (regional) return regional;
  }
  return null;
}
