import { assertValidSampleRate, type Pcm } from './pcm';
import { NOISE_TABLE_MASK, noiseTable, raisedCosineRamp, voicedWaveform, type Formants, type VoicedWaveform } from './synth-tables';

/**
 * Synthesiser behind the built-in `mock` provider.
 *
 * It does not speak; it produces a deterministic, speech-shaped signal (a buzzy glottal source
 * coloured by vowel formants, one "syllable" per character) so that the rest of the pipeline
 * (encoding, probing, durations, billing) is exercised with realistic audio and sizes.
 *
 * It runs on the event loop for every mock chunk, so it is built for speed: each syllable is a
 * precomputed periodic waveform (synth-tables.ts) whose steady part is a native copy; only the
 * fades and consonant onsets are computed sample by sample.
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

// Approximate adult formant frequencies (Hz) for a handful of vowels, plus a nasal murmur.
// A formant set's index in this list identifies its wavetables.
const FORMANT_SETS: readonly Formants[] = [
  [730, 1090, 2440], // a
  [530, 1840, 2480], // e
  [270, 2290, 3010], // i
  [570, 840, 2410], // o
  [300, 870, 2240], // u
  [300, 2000, 2700], // y
  [250, 1200, 2300], // nasal
];
const VOWEL_FORMANT_IDS: Record<string, number> = { a: 0, e: 1, i: 2, o: 3, u: 4, y: 5 };
const VOWEL_COUNT = 6;
const NASAL_FORMANT_ID = 6;

const FRICATIVES = new Set('fszvhxcjq');
const PLOSIVES = new Set('ptkbdg');
const NASALS = new Set('mnlrw');
const PAUSE_PUNCTUATION = new Set('.,;:!?…—–()"\'«»¿¡');

type Onset = 'none' | 'fricative' | 'plosive';
type Segment = { kind: 'silence'; weight: number } | { kind: 'voiced'; weight: number; formantId: number; onset: Onset };

const ONSET_VOICED_GAIN = 0.15;
const FRICATIVE_NOISE_GAIN = 0.3;
const PLOSIVE_NOISE_GAIN = 0.5;
/** Syllable pitches are quantised to half semitones so a few cached waveforms serve a whole voice. */
const PITCH_STEPS_PER_OCTAVE = 24;

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
  let totalWeight = 0;
  for (const segment of segments) totalWeight += segment.weight;

  // Plan first: the loudest waveform in the utterance fixes the gain that puts the peak at
  // PEAK_LEVEL, so each distinct waveform is scaled once (a few thousand samples) instead of
  // the whole output afterwards.
  const syllables: PlannedSyllable[] = [];
  let loudestPeak = 0;
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
    const steppedHz = Math.pow(2, Math.round(PITCH_STEPS_PER_OCTAVE * Math.log2(targetHz)) / PITCH_STEPS_PER_OCTAVE);
    const waveform = voicedWaveform({
      formantId: segment.formantId,
      formants: FORMANT_SETS[segment.formantId],
      formantScale: profile.formantScale,
      periodSamples: Math.max(2, Math.round(sampleRate / steppedHz)),
      sampleRate,
    });
    const noiseOffset = Math.floor(random() * (NOISE_TABLE_MASK + 1));
    syllables.push({ start, length: end - start, onset: segment.onset, waveform, noiseOffset });
    loudestPeak = Math.max(loudestPeak, waveform.peak);
  }
  if (loudestPeak === 0) return { sampleRate, samples }; // nothing voiced: silence

  const gain = PEAK_LEVEL / loudestPeak;
  const scaledWaveforms = new Map<VoicedWaveform, VoicedWaveform>();
  const noise = noiseTable(sampleRate);
  let loudestReached = false;
  for (const { start, length, onset, waveform, noiseOffset } of syllables) {
    let scaled = scaledWaveforms.get(waveform);
    if (!scaled) {
      scaled = scaleWaveform(waveform, gain);
      scaledWaveforms.set(waveform, scaled);
    }
    const reachedPeak = renderSyllable(samples, start, length, onset, scaled, noise, noiseOffset, sampleRate);
    if (reachedPeak && waveform.peak === loudestPeak) loudestReached = true;
  }
  // No syllable exceeds its waveform's peak, so the output already peaks at PEAK_LEVEL once the
  // loudest waveform is played for a whole period; only very short syllables may never be.
  if (!loudestReached) normalizePeak(samples, PEAK_LEVEL);
  return { sampleRate, samples };
}

interface PlannedSyllable {
  start: number;
  length: number;
  onset: Onset;
  waveform: VoicedWaveform;
  noiseOffset: number;
}

/** Scales one period and tiles it: the waveform is periodic, so that is the whole table. */
function scaleWaveform({ samples, periodSamples }: VoicedWaveform, gain: number): VoicedWaveform {
  const scaled = new Float32Array(samples.length);
  let scaledPeak = 0;
  for (let i = 0; i < periodSamples; i++) {
    scaled[i] = samples[i] * gain;
    scaledPeak = Math.max(scaledPeak, Math.abs(scaled[i]));
  }
  for (let offset = periodSamples; offset < scaled.length; offset += periodSamples) scaled.copyWithin(offset, 0, periodSamples);
  return { samples: scaled, periodSamples, peak: scaledPeak };
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

const SILENCE_SEGMENT: Segment = { kind: 'silence', weight: 0.6 };
const PAUSE_SEGMENT: Segment = { kind: 'silence', weight: 1.8 };
const segmentCache = new Map<string, Segment>();
const MAX_CACHED_SEGMENTS = 4096;

/** Segments are pure per character; memoised because the regex and NFD work add up per chunk. */
function segmentFor(character: string): Segment {
  const cached = segmentCache.get(character);
  if (cached) return cached;
  if (segmentCache.size >= MAX_CACHED_SEGMENTS) segmentCache.clear();
  const segment = classifyCharacter(character);
  segmentCache.set(character, segment);
  return segment;
}

function classifyCharacter(character: string): Segment {
  if (/\s/u.test(character)) return SILENCE_SEGMENT;
  if (PAUSE_PUNCTUATION.has(character)) return PAUSE_SEGMENT;

  // Strip diacritics so "é" is treated like "e".
  const letter = character.normalize('NFD').charAt(0).toLowerCase();
  const vowel = VOWEL_FORMANT_IDS[letter];
  if (vowel !== undefined) return { kind: 'voiced', weight: 1, formantId: vowel, onset: 'none' };

  const hashedVowel = fnv1a(letter) % VOWEL_COUNT;
  if (NASALS.has(letter)) return { kind: 'voiced', weight: 1, formantId: NASAL_FORMANT_ID, onset: 'none' };
  if (FRICATIVES.has(letter)) return { kind: 'voiced', weight: 1, formantId: hashedVowel, onset: 'fricative' };
  if (PLOSIVES.has(letter)) return { kind: 'voiced', weight: 1, formantId: hashedVowel, onset: 'plosive' };
  // Digits, other scripts and symbols: a voiced syllable whose vowel colour depends on the character.
  return { kind: 'voiced', weight: 1, formantId: hashedVowel, onset: 'none' };
}

/**
 * Renders one voiced syllable into out[start, start + length): optional consonant onset (plosive
 * closure + burst, or fricative hiss over a quiet voiced murmur), then the vowel, with
 * raised-cosine fades at both ends so each syllable starts and ends at zero (no clicks).
 * Nothing exceeds the waveform's peak; returns whether the unfaded vowel spans a whole period,
 * i.e. whether the syllable reaches that peak exactly.
 */
function renderSyllable(
  out: Float32Array,
  start: number,
  length: number,
  onset: Onset,
  { samples: waveform, periodSamples, peak }: VoicedWaveform,
  noise: Float32Array,
  noiseOffset: number,
  sampleRate: number,
): boolean {
  const onsetLength = onset === 'fricative' ? Math.floor(length * 0.35) : onset === 'plosive' ? Math.floor(length * 0.25) : 0;
  const closureLength = onset === 'plosive' ? Math.floor(onsetLength * 0.6) : 0; // left silent
  // Noise peaks at 1: relative to the waveform's peak, onset + murmur stay below that peak.
  const onsetNoiseGain = (onset === 'plosive' ? PLOSIVE_NOISE_GAIN : FRICATIVE_NOISE_GAIN) * peak;
  const rampLength = Math.max(1, Math.min(Math.round(sampleRate * 0.012), Math.floor(length / 4)));
  const shape: SyllableShape = {
    out,
    start,
    length,
    waveform,
    onsetLength,
    onsetNoiseGain,
    noise,
    noiseOffset,
    ramp: raisedCosineRamp(rampLength),
  };

  const copyFrom = Math.max(onsetLength, rampLength);
  const copyTo = Math.max(copyFrom, length - rampLength);
  shapeSamples(shape, closureLength, copyFrom);
  copyWaveform(out, start, copyFrom, copyTo, waveform);
  shapeSamples(shape, copyTo, length);
  return copyTo - copyFrom >= periodSamples;
}

interface SyllableShape {
  out: Float32Array;
  start: number;
  length: number;
  waveform: Float32Array;
  onsetLength: number;
  onsetNoiseGain: number;
  noise: Float32Array;
  noiseOffset: number;
  ramp: Float32Array;
}

/** The per-sample part of a syllable: onset mixing and the fades. */
function shapeSamples(shape: SyllableShape, from: number, to: number): void {
  const { out, start, length, waveform, onsetLength, onsetNoiseGain, noise, noiseOffset, ramp } = shape;
  const rampLength = ramp.length;
  const fadeOutFrom = length - rampLength;
  const noiseMask = NOISE_TABLE_MASK;
  const waveformLength = waveform.length;
  let position = from % waveformLength;
  for (let i = from; i < to; i++) {
    let sample = waveform[position];
    if (i < onsetLength) sample = sample * ONSET_VOICED_GAIN + noise[(noiseOffset + i) & noiseMask] * onsetNoiseGain;
    if (i < rampLength) sample *= ramp[i];
    else if (i >= fadeOutFrom) sample *= ramp[length - 1 - i];
    out[start + i] = sample;
    if (++position === waveformLength) position = 0;
  }
}

/** The steady part of a vowel: the looping waveform copied natively, whole table runs at a time. */
function copyWaveform(out: Float32Array, start: number, from: number, to: number, waveform: Float32Array): void {
  const waveformLength = waveform.length;
  let position = from % waveformLength;
  for (let i = from; i < to;) {
    const run = Math.min(waveformLength - position, to - i);
    out.set(position === 0 && run === waveformLength ? waveform : waveform.subarray(position, position + run), start + i);
    i += run;
    position = 0;
  }
}

function normalizePeak(samples: Float32Array, peak: number): void {
  let max = 0;
  for (let i = 0; i < samples.length; i++) max = Math.max(max, Math.abs(samples[i]));
  if (max === 0) return;
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
