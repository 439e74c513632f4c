/**
 * Precomputed tables for the mock synthesiser, so that rendering a syllable is mostly a native
 * copy of a ready-made waveform instead of per-sample trig and filtering.
 *
 * Every table is a pure function of its parameters: caching (and evicting) tables never changes
 * the samples a synthesis produces, which keeps the output bit-identical for identical input.
 */

export type Formants = readonly [number, number, number];

const SINE_SIZE = 1024;
/** One period of sin(2πx) plus a guard point, for interpolated lookups while building tables. */
const SINE_TABLE: Float32Array = (() => {
  const table = new Float32Array(SINE_SIZE + 1);
  for (let i = 0; i <= SINE_SIZE; i++) table[i] = Math.sin((2 * Math.PI * i) / SINE_SIZE);
  return table;
})();

/** Caps the additive build cost for absurdly low fundamentals (pitch -50 semitones). */
const MAX_HARMONICS = 128;
/** Formant colour above this adds build cost but nothing audible to a mock voice. */
const HARMONIC_CEILING_HZ = 5500;
/** Tables hold whole periods and at least this many samples, so a syllable needs only a few copies. */
const MIN_TABLE_SAMPLES = 2048;
const MAX_CACHED_WAVEFORMS = 512;
const MAX_CACHED_NOISE_TABLES = 8;
const MAX_CACHED_RAMPS = 64;

export const NOISE_TABLE_SIZE = 16384;
export const NOISE_TABLE_MASK = NOISE_TABLE_SIZE - 1;
const NOISE_SEED = 0x5eed5eed;

export interface VoicedWaveformKey {
  /** Stable identifier of `formants` (part of the cache key). */
  formantId: number;
  formants: Formants;
  formantScale: number;
  /** Period of the fundamental in samples (integer, ≥ 2). */
  periodSamples: number;
  sampleRate: number;
}

export interface VoicedWaveform {
  /** A whole number of periods, so it loops seamlessly. */
  samples: Float32Array;
  periodSamples: number;
  /** Largest |sample|; every period reaches it. */
  peak: number;
}

const waveformCache = new Map<string, VoicedWaveform>();

/**
 * A buzzy glottal source (sawtooth) through three formant resonators, in steady state, with a
 * fundamental of exactly sampleRate / periodSamples. Levels are natural, not normalised: vowels
 * with strong low formants come out louder, as with the real filters, which keeps the loudness
 * contour speech-like.
 */
export function voicedWaveform(key: VoicedWaveformKey): VoicedWaveform {
  const cacheKey = `${key.formantId}:${key.formantScale}:${key.periodSamples}:${key.sampleRate}`;
  const cached = waveformCache.get(cacheKey);
  if (cached) return cached;
  if (waveformCache.size >= MAX_CACHED_WAVEFORMS) waveformCache.clear();
  const waveform = buildVoicedWaveform(key);
  waveformCache.set(cacheKey, waveform);
  return waveform;
}

function buildVoicedWaveform({ formants, formantScale, periodSamples, sampleRate }: VoicedWaveformKey): VoicedWaveform {
  const period = periodSamples;
  const f0 = sampleRate / period;
  const nyquistGuard = sampleRate * 0.45;
  const [f1, f2, f3] = formants.map((hz) => Math.min(hz * formantScale, nyquistGuard));
  const ceiling = Math.min(HARMONIC_CEILING_HZ, nyquistGuard);
  const harmonics = Math.max(1, Math.min(MAX_HARMONICS, Math.floor(ceiling / f0)));

  const formant1 = new Resonator(f1, 80, sampleRate);
  const formant2 = new Resonator(f2, 100, sampleRate);
  const formant3 = new Resonator(f3, 150, sampleRate);

  // Steady state of a sawtooth (−Σ sin(kθ)/k) through the three formant resonators: each
  // harmonic takes the filters' summed complex gain, phase included. The phases matter: they set
  // how energy spreads within a period, i.e. how steady the short-window loudness is.
  const cycle = new Float64Array(period);
  const sinePointsPerSample = SINE_SIZE / period;
  for (let k = 1; k <= harmonics; k++) {
    const omega = (2 * Math.PI * k * f0) / sampleRate;
    const cosOmega = Math.cos(omega);
    const sinOmega = Math.sin(omega);
    const cos2Omega = Math.cos(2 * omega);
    const sin2Omega = Math.sin(2 * omega);
    const [re1, im1] = formant1.response(cosOmega, sinOmega, cos2Omega, sin2Omega);
    const [re2, im2] = formant2.response(cosOmega, sinOmega, cos2Omega, sin2Omega);
    const [re3, im3] = formant3.response(cosOmega, sinOmega, cos2Omega, sin2Omega);
    const re = re1 + 0.55 * re2 + 0.3 * re3;
    const im = im1 + 0.55 * im2 + 0.3 * im3;
    const gain = Math.hypot(re, im) / k;
    const phaseOffset = ((Math.atan2(im, re) / (2 * Math.PI) + 1) % 1) * SINE_SIZE;
    // sin(2π·k·i/P + φ): track (k·i) mod P exactly in integers, then interpolate the sine table.
    for (let i = 0, cyclePosition = 0; i < period; i++) {
      let x = cyclePosition * sinePointsPerSample + phaseOffset;
      if (x >= SINE_SIZE) x -= SINE_SIZE;
      const index = x | 0;
      const below = SINE_TABLE[index];
      cycle[i] -= gain * (below + (SINE_TABLE[index + 1] - below) * (x - index));
      cyclePosition += k;
      while (cyclePosition >= period) cyclePosition -= period;
    }
  }

  const oneCycle = Float32Array.from(cycle);
  let peak = 0;
  for (let i = 0; i < period; i++) peak = Math.max(peak, Math.abs(oneCycle[i]));
  const samples = new Float32Array(period * Math.ceil(MIN_TABLE_SAMPLES / period));
  for (let offset = 0; offset < samples.length; offset += period) samples.set(oneCycle, offset);
  return { samples, periodSamples: period, peak };
}

/** Two-pole band-pass resonator (RBJ band-pass, 0 dB peak gain) modelling one formant. */
class Resonator {
  private readonly b0: number;
  private readonly a1: number;
  private readonly a2: number;

  constructor(centerHz: number, bandwidthHz: number, sampleRate: number) {
    const w0 = (2 * Math.PI * centerHz) / sampleRate;
    const alpha = Math.sin(w0) / (2 * (centerHz / bandwidthHz));
    const a0 = 1 + alpha;
    this.b0 = alpha / a0; // b1 = 0 and b2 = −b0 for this filter type
    this.a1 = (-2 * Math.cos(w0)) / a0;
    this.a2 = (1 - alpha) / a0;
  }

  /** Complex gain H(e^{jω}) = b0(1 − e^{−2jω}) / (1 + a1·e^{−jω} + a2·e^{−2jω}), as [re, im]. */
  response(cosOmega: number, sinOmega: number, cos2Omega: number, sin2Omega: number): [number, number] {
    const numRe = this.b0 * (1 - cos2Omega);
    const numIm = this.b0 * sin2Omega;
    const denRe = 1 + this.a1 * cosOmega + this.a2 * cos2Omega;
    const denIm = -(this.a1 * sinOmega + this.a2 * sin2Omega);
    const denNorm = denRe * denRe + denIm * denIm;
    return [(numRe * denRe + numIm * denIm) / denNorm, (numIm * denRe - numRe * denIm) / denNorm];
  }
}

const noiseCache = new Map<number, Float32Array>();

/** Band-passed noise around 4.5 kHz (fricatives, bursts), peaking at exactly ±1. */
export function noiseTable(sampleRate: number): Float32Array {
  const cached = noiseCache.get(sampleRate);
  if (cached) return cached;
  if (noiseCache.size >= MAX_CACHED_NOISE_TABLES) noiseCache.clear();

  // RBJ band-pass (0 dB peak), 2.5 kHz wide.
  const centerHz = Math.min(4500, sampleRate * 0.45);
  const w0 = (2 * Math.PI * centerHz) / sampleRate;
  const alpha = Math.sin(w0) / (2 * (centerHz / 2500));
  const a0 = 1 + alpha;
  const b0 = alpha / a0;
  const a1 = (-2 * Math.cos(w0)) / a0;
  const a2 = (1 - alpha) / a0;

  const warmUp = 256; // let the filter settle before recording
  const filtered = new Float64Array(NOISE_TABLE_SIZE);
  let state = NOISE_SEED;
  let x1 = 0;
  let x2 = 0;
  let y1 = 0;
  let y2 = 0;
  let peak = 0;
  for (let i = -warmUp; i < NOISE_TABLE_SIZE; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const x = state / 2147483648 - 1;
    const y = b0 * (x - x2) - a1 * y1 - a2 * y2;
    x2 = x1;
    x1 = x;
    y2 = y1;
    y1 = y;
    if (i >= 0) {
      filtered[i] = y;
      peak = Math.max(peak, Math.abs(y));
    }
  }
  const table = new Float32Array(NOISE_TABLE_SIZE);
  for (let i = 0; i < NOISE_TABLE_SIZE; i++) table[i] = filtered[i] / peak;
  noiseCache.set(sampleRate, table);
  return table;
}

const rampCache = new Map<number, Float32Array>();

/** Raised-cosine fade-in: ramp[i] = 0.5 − 0.5·cos(π·i / length), so ramp[0] = 0. */
export function raisedCosineRamp(length: number): Float32Array {
  const cached = rampCache.get(length);
  if (cached) return cached;
  if (rampCache.size >= MAX_CACHED_RAMPS) rampCache.clear();
  const ramp = new Float32Array(length);
  for (let i = 0; i < length; i++) ramp[i] = 0.5 - 0.5 * Math.cos((Math.PI * i) / length);
  rampCache.set(length, ramp);
  return ramp;
}
