import { assertValidSampleRate, type Pcm } from './pcm';

/**
 * Synthesiser behind the built-in `mock` provider.
 *
 * It does not speak; it produces a deterministic, speech-shaped signal (a buzzy glottal source
 * through vowel formant filters, one "syllable" per character) so that the rest of the pipeline
 * (encoding, probing, durations, billing) is exercised with realistic audio and sizes.
 */
export interface SynthesisInput {
  text: string;
  voice: string;
  /** Speaking-rate multiplier; 1 = 15 characters per second. */
  speed: number;
  /** Pitch shift in semitones, -50..50. */
  pitch?: number;
  /** Output sample rate in Hz, default 24000. */
  sampleRate?: number;
}

export const MOCK_CHARS_PER_SECOND = 15;
export const MOCK_MIN_DURATION_SECONDS = 0.25;
export const MOCK_DEFAULT_SAMPLE_RATE = 24000;
const PITCH_LIMIT_SEMITONES = 50;
const MIN_SAMPLE_RATE = 8000;
const MAX_SAMPLE_RATE = 192000;
const PEAK_LEVEL = 0.5;

interface VoiceProfile {
  baseHz: number;
  /** Vocal-tract scale: higher voices have shorter tracts and therefore higher formants. */
  formantScale: number;
}

const KNOWN_VOICES: Record<string, VoiceProfile> = {
  'mock-voice-1': { baseHz: 115, formantScale: 1.0 },
  'mock-voice-2': { baseHz: 205, formantScale: 1.17 },
  'mock-voice-3': { baseHz: 155, formantScale: 1.08 },
};

type Formants = readonly [number, number, number];

// Approximate adult formant frequencies (Hz) for a handful of vowels.
const VOWEL_FORMANTS: Record<string, Formants> = {
  a: [730, 1090, 2440],
  e: [530, 1840, 2480],
  i: [270, 2290, 3010],
  o: [570, 840, 2410],
  u: [300, 870, 2240],
  y: [300, 2000, 2700],
};
const VOWEL_LIST: Formants[] = Object.values(VOWEL_FORMANTS);
const NASAL_FORMANTS: Formants = [250, 1200, 2300];

const FRICATIVES = new Set('fszvhxcjq');
const PLOSIVES = new Set('ptkbdg');
const NASALS = new Set('mnlrw');
const PAUSE_PUNCTUATION = new Set('.,;:!?…—–()"\'«»¿¡');

type Segment =
  | { kind: 'silence'; weight: number }
  | { kind: 'voiced'; weight: number; formants: Formants; onset: 'none' | 'fricative' | 'plosive' };

/** Character-count rule shared with anything that needs to predict mock audio length. */
export function mockDurationSeconds(text: string, speed: number): number {
  if (!Number.isFinite(speed) || speed <= 0) throw new RangeError(`speed must be a positive number, got ${speed}`);
  const characters = Array.from(text.trim()).length;
  return Math.max(MOCK_MIN_DURATION_SECONDS, characters / (MOCK_CHARS_PER_SECOND * speed));
}

export function synthesizeSpeechLike(input: SynthesisInput): Pcm {
  const { text, voice, speed } = input;
  const pitch = input.pitch ?? 0;
  const sampleRate = input.sampleRate ?? MOCK_DEFAULT_SAMPLE_RATE;
  validateInput(speed, pitch, sampleRate);

  const characters = Array.from(text.trim());
  const totalSamples = Math.round(mockDurationSeconds(text, speed) * sampleRate);
  const samples = new Float32Array(totalSamples);

  // Everything "random" derives from the text and voice, so identical requests give
  // bit-identical audio (cacheable, testable) while different texts still sound different.
  const random = mulberry32(fnv1a(`${voice}\u0000${text}`));
  const profile = voiceProfile(voice);
  const baseHz = profile.baseHz * Math.pow(2, pitch / 12);
  const segments = characters.map(segmentFor);
  const totalWeight = segments.reduce((sum, segment) => sum + segment.weight, 0);

  const oscillator = { phase: 0, hz: baseHz };
  let weightSoFar = 0;
  for (const segment of segments) {
    const start = Math.round((weightSoFar / totalWeight) * totalSamples);
    weightSoFar += segment.weight;
    const end = Math.round((weightSoFar / totalWeight) * totalSamples);
    if (segment.kind === 'silence' || end <= start) continue;

    // Falling intonation across the utterance plus per-syllable jitter sounds far more natural
    // than a monotone. The cap keeps extreme pitch shifts at low sample rates below Nyquist.
    const progress = start / Math.max(1, totalSamples);
    const intonedHz = baseHz * (1.08 - 0.16 * progress) * (1 + (random() - 0.5) * 0.08);
    const targetHz = Math.min(intonedHz, sampleRate * 0.2);
    renderSyllable(samples, start, end, sampleRate, segment, profile.formantScale, targetHz, oscillator, random);
  }

  normalizePeak(samples, PEAK_LEVEL);
  return { sampleRate, samples };
}

function validateInput(speed: number, pitch: number, sampleRate: number): void {
  if (!Number.isFinite(speed) || speed <= 0) {
    throw new RangeError(`speed must be a positive number, got ${speed}`);
  }
  if (!Number.isFinite(pitch) || Math.abs(pitch) > PITCH_LIMIT_SEMITONES) {
    throw new RangeError(`pitch must be between -${PITCH_LIMIT_SEMITONES} and ${PITCH_LIMIT_SEMITONES} semitones, got ${pitch}`);
  }
  assertValidSampleRate(sampleRate);
  if (sampleRate < MIN_SAMPLE_RATE || sampleRate > MAX_SAMPLE_RATE) {
    throw new RangeError(`sampleRate must be between ${MIN_SAMPLE_RATE} and ${MAX_SAMPLE_RATE} Hz, got ${sampleRate}`);
  }
}

function voiceProfile(voice: string): VoiceProfile {
  const known = KNOWN_VOICES[voice];
  if (known) return known;
  // Unknown voices still get a stable, distinct pitch (90..250 Hz) instead of an error.
  const hash = fnv1a(`voice:${voice}`);
  const baseHz = 90 + (hash % 161);
  return { baseHz, formantScale: 1 + (baseHz - 115) / 800 };
}

function segmentFor(character: string): Segment {
  if (/\s/u.test(character)) return { kind: 'silence', weight: 0.6 };
  if (PAUSE_PUNCTUATION.has(character)) return { kind: 'silence', weight: 1.8 };

  // Strip diacritics so "é" is treated like "e".
  const letter = character.normalize('NFD').charAt(0).toLowerCase();
  const vowel = VOWEL_FORMANTS[letter];
  if (vowel) return { kind: 'voiced', weight: 1, formants: vowel, onset: 'none' };

  const hashedVowel = VOWEL_LIST[fnv1a(letter) % VOWEL_LIST.length];
  if (NASALS.has(letter)) return { kind: 'voiced', weight: 1, formants: NASAL_FORMANTS, onset: 'none' };
  if (FRICATIVES.has(letter)) return { kind: 'voiced', weight: 1, formants: hashedVowel, onset: 'fricative' };
  if (PLOSIVES.has(letter)) return { kind: 'voiced', weight: 1, formants: hashedVowel, onset: 'plosive' };
  // Digits, other scripts and symbols: a voiced syllable whose vowel colour depends on the character.
  return { kind: 'voiced', weight: 1, formants: hashedVowel, onset: 'none' };
}

function renderSyllable(
  out: Float32Array,
  start: number,
  end: number,
  sampleRate: number,
  segment: Extract<Segment, { kind: 'voiced' }>,
  formantScale: number,
  targetHz: number,
  oscillator: { phase: number; hz: number },
  random: () => number,
): void {
  const length = end - start;
  const nyquistGuard = sampleRate * 0.45;
  const [f1, f2, f3] = segment.formants.map((hz) => Math.min(hz * formantScale, nyquistGuard));
  const formant1 = new Resonator(f1, 80, sampleRate);
  const formant2 = new Resonator(f2, 100, sampleRate);
  const formant3 = new Resonator(f3, 150, sampleRate);
  const noiseBand = new Resonator(Math.min(4500, nyquistGuard), 2500, sampleRate);

  // Consonant onsets occupy the first part of the syllable; the rest is the vowel.
  const onsetLength =
    segment.onset === 'fricative' ? Math.floor(length * 0.35) : segment.onset === 'plosive' ? Math.floor(length * 0.25) : 0;
  const closureLength = segment.onset === 'plosive' ? Math.floor(onsetLength * 0.6) : 0;
  const onsetNoiseGain = segment.onset === 'plosive' ? 0.6 : 0.35;
  const rampLength = Math.max(1, Math.min(Math.round(sampleRate * 0.012), Math.floor(length / 4)));
  const glide = 1 - Math.exp(-1 / (sampleRate * 0.02)); // ~20 ms pitch glide between syllables
  const vibratoRate = (2 * Math.PI * 5.5) / sampleRate;

  let { phase, hz } = oscillator;
  let vibrato = 1;
  for (let i = 0; i < length; i++) {
    const n = start + i;
    hz += (targetHz - hz) * glide;
    // Vibrato moves slowly; refreshing it every 32 samples saves most of the trig cost.
    if ((i & 31) === 0) vibrato = 1 + 0.01 * Math.sin(n * vibratoRate);
    const step = (hz * vibrato) / sampleRate;
    phase += step;
    if (phase >= 1) phase -= 1;
    const source = 2 * phase - 1 - polyBlep(phase, step);

    const voiced = formant1.process(source) + 0.55 * formant2.process(source) + 0.3 * formant3.process(source);
    const noise = noiseBand.process(random() * 2 - 1);

    let sample: number;
    if (i < closureLength) sample = 0; // plosive closure: silence before the burst
    else if (i < onsetLength) sample = noise * onsetNoiseGain + voiced * 0.15;
    else sample = voiced + noise * 0.02; // a little breathiness

    out[n] = sample * raisedCosineEnvelope(i, length, rampLength);
  }
  oscillator.phase = phase;
  oscillator.hz = hz;
}

/** Fades in/out over `ramp` samples so each syllable starts and ends at zero: no clicks. */
function raisedCosineEnvelope(i: number, length: number, ramp: number): number {
  if (i < ramp) return 0.5 - 0.5 * Math.cos((Math.PI * i) / ramp);
  const fromEnd = length - 1 - i;
  if (fromEnd < ramp) return 0.5 - 0.5 * Math.cos((Math.PI * fromEnd) / ramp);
  return 1;
}

/** Band-limited step correction for the sawtooth, keeping high pitches from aliasing harshly. */
function polyBlep(phase: number, step: number): number {
  if (phase < step) {
    const t = phase / step;
    return t + t - t * t - 1;
  }
  if (phase > 1 - step) {
    const t = (phase - 1) / step;
    return t * t + t + t + 1;
  }
  return 0;
}

/**
 * Two-pole band-pass resonator (RBJ band-pass, 0 dB peak gain) modelling one formant.
 * Fresh per syllable: each syllable's envelope starts and ends at zero, so no state needs carrying.
 */
class Resonator {
  private readonly b0: number;
  private readonly a1: number;
  private readonly a2: number;
  private x1 = 0;
  private x2 = 0;
  private y1 = 0;
  private y2 = 0;

  constructor(centerHz: number, bandwidthHz: number, sampleRate: number) {
    const w0 = (2 * Math.PI * centerHz) / sampleRate;
    const alpha = Math.sin(w0) / (2 * (centerHz / bandwidthHz));
    const a0 = 1 + alpha;
    this.b0 = alpha / a0; // b1 = 0 and b2 = -b0 for this filter type
    this.a1 = (-2 * Math.cos(w0)) / a0;
    this.a2 = (1 - alpha) / a0;
  }

  process(x: number): number {
    const y = this.b0 * (x - this.x2) - this.a1 * this.y1 - this.a2 * this.y2;
    this.x2 = this.x1;
    this.x1 = x;
    this.y2 = this.y1;
    this.y1 = y;
    return y;
  }
}

function normalizePeak(samples: Float32Array, peak: number): void {
  let max = 0;
  for (let i = 0; i < samples.length; i++) max = Math.max(max, Math.abs(samples[i]));
  if (max === 0) return; // all silence (e.g. whitespace-only text)
  const gain = peak / max;
  for (let i = 0; i < samples.length; i++) samples[i] *= gain;
}

/** 32-bit FNV-1a over UTF-16 code units: tiny, stable seed derivation. */
function fnv1a(value: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) {
    hash ^= value.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Small seeded PRNG returning floats in [0, 1). */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
