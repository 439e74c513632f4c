/**
 * Cache keys for synthesised audio. Each text gets one key per mode:
 *
 * - direct:   the exact text; only byte-identical requests share audio.
 * - content:  normalizeContent(text); presentation differences are ignored.
 * - semantic: toSpokenForm(text, language); texts that sound the same share.
 *
 * Every key also covers the options that change the audio, and nothing else.
 */

import { hash } from 'node:crypto';
import { normalizeContent } from './normalize';
import { toSpokenForm } from './spoken';

export type HashMode = 'direct' | 'content' | 'semantic';

export const HASH_MODES: readonly HashMode[] = Object.freeze(['direct', 'content', 'semantic'] as const);

/**
 * The request options that change the audio. Cache policy (cache, ttl) and
 * metadata are deliberately absent: they must never split or merge keys.
 */
export interface AudioAffectingOptions {
  provider: string;
  voice: string;
  format: string;
  speed: number;
  quality: string;
  language: string;
  emotion?: { positivity?: number; energy?: number };
  pitch?: number;
  /** How to speak (provider_a): part of the hash only when given, so audio without it keeps its hash. */
  instructions?: string;
}

/** Rounds away float noise (0.1 + 0.2) and equates 1 with 1.0 and -0 with 0. */
function canonicalNumber(name: string, value: number): number {
  if (!Number.isFinite(value)) throw new RangeError(`${name} must be a finite number, got ${value}`);
  const rounded = Math.round(value * 1e4) / 1e4;
  return rounded === 0 ? 0 : rounded;
}

/** BCP 47 tags are case-insensitive; "en_US" is a common spelling of "en-US". */
export function canonicalLanguage(language: string): string {
  return language.trim().toLowerCase().replace(/_/g, '-');
}

type Canonical = string | number | { [key: string]: Canonical };

function stableStringify(value: Canonical): string {
  if (typeof value !== 'object') return JSON.stringify(value);
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${stableStringify(value[key])}`).join(',')}}`;
}

/**
 * Stable JSON of the audio-affecting options: keys sorted, undefined values
 * dropped, numbers rounded to 4 decimals, language tag lowercased, and an
 * emotion without values omitted. Fields are picked by name, so extra
 * properties on the runtime object (cache, ttl, metadata, ...) are ignored
 * even if a caller passes a wider object.
 */
export function canonicalOptions(o: AudioAffectingOptions): string {
  const canonical: Record<string, Canonical> = {
    provider: o.provider,
    voice: o.voice,
    format: o.format,
    speed: canonicalNumber('speed', o.speed),
    quality: o.quality,
    language: canonicalLanguage(o.language),
  };
  if (o.pitch !== undefined) canonical.pitch = canonicalNumber('pitch', o.pitch);
  if (o.instructions !== undefined) canonical.instructions = o.instructions;

  const emotion: Record<string, Canonical> = {};
  if (o.emotion?.positivity !== undefined) emotion.positivity = canonicalNumber('emotion.positivity', o.emotion.positivity);
  if (o.emotion?.energy !== undefined) emotion.energy = canonicalNumber('emotion.energy', o.emotion.energy);
  if (Object.keys(emotion).length > 0) canonical.emotion = emotion;

  return stableStringify(canonical);
}

export interface TextForms {
  original: string;
  content: string;
  semantic: string;
}

/** The three forms of a text that the hash modes key on, e.g. for display or debugging. */
export function textForms(text: string, language?: string): TextForms {
  return {
    original: text,
    content: normalizeContent(text),
    semantic: toSpokenForm(text, language),
  };
}

function sha256Hex(input: string): string {
  return hash('sha256', input, 'hex');
}

/**
 * Hash input is `${mode}\n${canonicalOptions}\n${form}`. The mode prefix keeps
 * the three key spaces disjoint even when two forms coincide; the options JSON
 * contains no raw newline, so the text (which may) cannot shift the fields.
 */
function hashForm(mode: HashMode, options: string, form: string): string {
  return sha256Hex(`${mode}\n${options}\n${form}`);
}

/** The cache key of `text` in one mode: 64 lowercase hex characters. */
export function computeHash(mode: HashMode, text: string, options: AudioAffectingOptions): string {
  const form = mode === 'direct' ? text : mode === 'content' ? normalizeContent(text) : toSpokenForm(text, options.language);
  return hashForm(mode, canonicalOptions(options), form);
}

/** The cache keys of `text` in all three modes. */
export function computeHashes(text: string, options: AudioAffectingOptions): { direct: string; content: string; semantic: string } {
  const canonical = canonicalOptions(options);
  return {
    direct: hashForm('direct', canonical, text),
    content: hashForm('content', canonical, normalizeContent(text)),
    semantic: hashForm('semantic', canonical, toSpokenForm(text, options.language)),
  };
}
