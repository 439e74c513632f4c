/**
 * Mono floating-point PCM, the common currency between the synthesiser and the codecs.
 * Samples are expected to lie in [-1, 1].
 */
export interface Pcm {
  sampleRate: number;
  samples: Float32Array;
}

export interface ConcatOptions {
  /** Length of the equal-power crossfade applied at each seam. Default 10 ms; 0 disables it. */
  crossfadeMs?: number;
}

export const DEFAULT_CROSSFADE_MS = 10;

/**
 * Sample `j` of an equal-power crossfade `overlap` samples long: `outgoing` fading out under
 * `incoming`. The curve is sampled at mid-points so neither side is ever fully silent in the overlap.
 * Equal-power can sum correlated material up to +3 dB: callers clamp to their sample range.
 */
export function seamMix(outgoing: number, incoming: number, j: number, overlap: number): number {
  const angle = ((j + 0.5) / overlap) * (Math.PI / 2);
  return outgoing * Math.cos(angle) + incoming * Math.sin(angle);
}

/** Samples of crossfade at the seam of two chunks of `a` and `b` samples: never more than half of either. */
export function seamOverlap(requested: number, a: number, b: number): number {
  return Math.min(requested, Math.floor(a / 2), Math.floor(b / 2));
}

export function durationSeconds(pcm: Pcm): number {
  return pcm.samples.length / pcm.sampleRate;
}

export function assertValidSampleRate(sampleRate: number): void {
  if (!Number.isInteger(sampleRate) || sampleRate <= 0) {
    throw new RangeError(`Invalid sample rate: ${sampleRate} (expected a positive integer)`);
  }
}

/**
 * Linear-interpolation resampler. Good enough for speech chunks that differ only slightly in
 * rate; it applies no anti-aliasing filter, so large downsampling ratios will alias.
 * Returns the input unchanged when the rate already matches.
 */
export function resample(pcm: Pcm, sampleRate: number): Pcm {
  assertValidSampleRate(sampleRate);
  assertValidSampleRate(pcm.sampleRate);
  if (pcm.sampleRate === sampleRate) return pcm;

  const input = pcm.samples;
  const outputLength = Math.round((input.length * sampleRate) / pcm.sampleRate);
  const output = new Float32Array(outputLength);
  const step = pcm.sampleRate / sampleRate;
  const last = input.length - 1;

  for (let i = 0; i < outputLength; i++) {
    const position = i * step;
    const index = Math.floor(position);
    if (index >= last) {
      // Past the final input sample: hold it rather than reading beyond the buffer.
      output[i] = input[last];
      continue;
    }
    const fraction = position - index;
    output[i] = input[index] + (input[index + 1] - input[index]) * fraction;
  }
  return { sampleRate, samples: output };
}

/**
 * Joins chunks into one stream at the first chunk's sample rate.
 *
 * Each seam gets an equal-power (sin/cos) crossfade: chunks synthesised independently rarely
 * line up in phase, and a hard cut between them is audible as a click. Equal-power keeps the
 * loudness steady across uncorrelated material. A seam's overlap is limited to half of either
 * neighbour so a short chunk is never consumed by the fades on both of its sides.
 *
 * Output length = sum of (resampled) chunk lengths minus the overlap at every seam.
 */
export function concatPcm(parts: Pcm[], opts: ConcatOptions = {}): Pcm {
  if (parts.length === 0) throw new Error('concatPcm: at least one PCM chunk is required');
  const crossfadeMs = opts.crossfadeMs ?? DEFAULT_CROSSFADE_MS;
  if (!Number.isFinite(crossfadeMs) || crossfadeMs < 0) {
    throw new RangeError(`concatPcm: crossfadeMs must be a non-negative number, got ${crossfadeMs}`);
  }

  const sampleRate = parts[0].sampleRate;
  const chunks = parts.map((part) => resample(part, sampleRate).samples);
  const requestedOverlap = Math.round((crossfadeMs * sampleRate) / 1000);

  const overlaps: number[] = [];
  for (let i = 1; i < chunks.length; i++) {
    overlaps.push(seamOverlap(requestedOverlap, chunks[i - 1].length, chunks[i].length));
  }

  const totalLength = chunks.reduce((sum, chunk) => sum + chunk.length, 0) - overlaps.reduce((sum, n) => sum + n, 0);
  const output = new Float32Array(totalLength);
  output.set(chunks[0], 0);
  let writeEnd = chunks[0].length;

  for (let i = 1; i < chunks.length; i++) {
    const chunk = chunks[i];
    const overlap = overlaps[i - 1];
    const start = writeEnd - overlap;
    for (let j = 0; j < overlap; j++) output[start + j] = Math.max(-1, Math.min(1, seamMix(output[start + j], chunk[j], j, overlap)));
    output.set(chunk.subarray(overlap), writeEnd);
    writeEnd = start + chunk.length;
  }

  return { sampleRate, samples: output };
}

/**
 * The samples concatPcm would produce, as a sequence of blocks, taking each part only when it is
 * reached (`parts[i]()` is called once, in order): a long join never holds every part decoded, nor
 * the joined whole, at once. Same seams, same crossfade, same values as concatPcm.
 */
export async function* concatPcmBlocks(
  parts: (() => Pcm | Promise<Pcm>)[],
  opts: ConcatOptions = {},
): AsyncGenerator<Float32Array, { sampleRate: number; samples: number }> {
  if (parts.length === 0) throw new Error('concatPcm: at least one PCM chunk is required');
  const crossfadeMs = opts.crossfadeMs ?? DEFAULT_CROSSFADE_MS;
  if (!Number.isFinite(crossfadeMs) || crossfadeMs < 0) {
    throw new RangeError(`concatPcm: crossfadeMs must be a non-negative number, got ${crossfadeMs}`);
  }
  const first = await parts[0]();
  const sampleRate = first.sampleRate;
  const requestedOverlap = Math.round((crossfadeMs * sampleRate) / 1000);
  let previous = first.samples;
  let from = 0; // samples of `previous` already given (its head went into the last crossfade)
  let total = 0;
  for (let i = 1; i < parts.length; i++) {
    const current = resample(await parts[i](), sampleRate).samples;
    const overlap = seamOverlap(requestedOverlap, previous.length, current.length);
    const body = previous.subarray(from, previous.length - overlap);
    total += body.length;
    yield body;
    const tail = previous.length - overlap;
    const mixed = new Float32Array(overlap);
    for (let j = 0; j < overlap; j++) mixed[j] = Math.max(-1, Math.min(1, seamMix(previous[tail + j], current[j], j, overlap)));
    total += overlap;
    if (overlap) yield mixed;
    previous = current;
    from = overlap;
  }
  const last = previous.subarray(from);
  total += last.length;
  yield last;
  return { sampleRate, samples: total };
}
