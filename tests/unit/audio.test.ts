import {
  AUDIO_FORMATS,
  AudioDecodeError,
  concatPcm,
  concatPcmBlocks,
  contentTypeFor,
  decode,
  durationSeconds,
  encode,
  encodeBlocks,
  joinMono16Wavs,
  probe,
  resample,
  synthesizeSpeechLike,
  transcode,
  type AudioFormat,
  type Pcm,
} from '../../domain/tts/audio';

const SAMPLE_RATE = 24000;
const TEXT = 'Hello world, this is the speech gateway talking. Testing one two three!';

function expectedSeconds(text: string, speed: number): number {
  return Math.max(0.25, text.trim().length / (15 * speed));
}

/** Lossy codecs add encoder delay/padding; allow 0.15 s or 10 %, whichever is larger. */
function expectDurationClose(actual: number, expected: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(Math.max(0.15, expected * 0.1));
}

function sine(hz: number, seconds: number, amplitude: number, sampleRate = SAMPLE_RATE, phase = 0): Pcm {
  const samples = new Float32Array(Math.round(seconds * sampleRate));
  for (let i = 0; i < samples.length; i++) samples[i] = amplitude * Math.sin(phase + (2 * Math.PI * hz * i) / sampleRate);
  return { sampleRate, samples };
}

function peak(samples: Float32Array): number {
  let max = 0;
  for (const s of samples) max = Math.max(max, Math.abs(s));
  return max;
}

function rms(samples: Float32Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

function maxAdjacentJump(samples: Float32Array, from = 1, to = samples.length): number {
  let max = 0;
  for (let i = Math.max(1, from); i < to; i++) max = Math.max(max, Math.abs(samples[i] - samples[i - 1]));
  return max;
}

/** 10 ms RMS envelope: lossy codecs change the waveform, but the loudness contour must survive. */
function envelope(pcm: Pcm): number[] {
  const window = Math.round(pcm.sampleRate / 100);
  const out: number[] = [];
  for (let start = 0; start + window <= pcm.samples.length; start += window) {
    out.push(rms(pcm.samples.subarray(start, start + window)));
  }
  return out;
}

function pearson(a: number[], b: number[]): number {
  const n = Math.min(a.length, b.length);
  const meanA = a.slice(0, n).reduce((s, v) => s + v, 0) / n;
  const meanB = b.slice(0, n).reduce((s, v) => s + v, 0) / n;
  let cov = 0;
  let varA = 0;
  let varB = 0;
  for (let i = 0; i < n; i++) {
    cov += (a[i] - meanA) * (b[i] - meanB);
    varA += (a[i] - meanA) ** 2;
    varB += (b[i] - meanB) ** 2;
  }
  return cov / Math.sqrt(varA * varB);
}

/** Best envelope correlation over a small lag range (codec delay is up to ~100 ms). */
function envelopeSimilarity(original: Pcm, decoded: Pcm): number {
  const a = envelope(original);
  const b = envelope(decoded);
  let best = -1;
  for (let lag = 0; lag <= 10; lag++) best = Math.max(best, pearson(a, b.slice(lag)));
  return best;
}

function seededBytes(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let state = seed >>> 0;
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}

function pcmBytes(pcm: Pcm): Buffer {
  return Buffer.from(pcm.samples.buffer, pcm.samples.byteOffset, pcm.samples.byteLength);
}

describe('synthesizeSpeechLike', () => {
  it('follows the 15 characters-per-second rule on the trimmed text', () => {
    for (const [text, speed] of [
      [TEXT, 1],
      ['  padded text with spaces   ', 1],
      [TEXT, 0.5],
      [TEXT, 1.7],
      ['Hi', 1], // below the 0.25 s floor
    ] as const) {
      const pcm = synthesizeSpeechLike({ text, voice: 'mock-voice-1', speed });
      expect(pcm.sampleRate).toBe(SAMPLE_RATE);
      expect(pcm.samples.length).toBe(Math.round(expectedSeconds(text, speed) * SAMPLE_RATE));
    }
  });

  it('speed 2 halves the duration', () => {
    const normal = synthesizeSpeechLike({ text: TEXT, voice: 'mock-voice-2', speed: 1 });
    const fast = synthesizeSpeechLike({ text: TEXT, voice: 'mock-voice-2', speed: 2 });
    expect(durationSeconds(fast)).toBeCloseTo(durationSeconds(normal) / 2, 3);
  });

  it('is deterministic and depends on text, voice and pitch', () => {
    const input = { text: TEXT, voice: 'mock-voice-1', speed: 1 };
    const a = synthesizeSpeechLike(input);
    const b = synthesizeSpeechLike({ ...input });
    expect(pcmBytes(a).equals(pcmBytes(b))).toBe(true);

    const variants = [
      synthesizeSpeechLike({ ...input, voice: 'mock-voice-2' }),
      synthesizeSpeechLike({ ...input, voice: 'mock-voice-3' }),
      synthesizeSpeechLike({ ...input, voice: 'some-unknown-voice' }),
      synthesizeSpeechLike({ ...input, pitch: 5 }),
      synthesizeSpeechLike({ ...input, text: TEXT.replace('world', 'wordl') }),
    ];
    for (const variant of variants) {
      expect(variant.samples.length).toBe(a.samples.length);
      expect(pcmBytes(variant).equals(pcmBytes(a))).toBe(false);
    }
  });

  it('produces audible, click-free audio peaking around 0.5 with pauses for spaces and punctuation', () => {
    const pcm = synthesizeSpeechLike({ text: 'aaa. aaa', voice: 'mock-voice-1', speed: 1 });
    expect(peak(pcm.samples)).toBeGreaterThan(0.45);
    expect(peak(pcm.samples)).toBeLessThanOrEqual(0.5 + 1e-6);
    expect(Math.abs(pcm.samples[0])).toBe(0);
    expect(Math.abs(pcm.samples[pcm.samples.length - 1])).toBeLessThan(1e-3);
    // The middle of the ". " region is silent, the syllables are not.
    const env = envelope(pcm);
    const mid = Math.floor(env.length / 2);
    expect(env[mid]).toBeLessThan(1e-4);
    expect(env[Math.floor(env.length * 0.15)]).toBeGreaterThan(0.05);
    expect(env[Math.floor(env.length * 0.85)]).toBeGreaterThan(0.05);
  });

  it('renders whitespace-only text as 0.25 s of silence', () => {
    const pcm = synthesizeSpeechLike({ text: '   ', voice: 'mock-voice-1', speed: 1 });
    expect(durationSeconds(pcm)).toBeCloseTo(0.25, 6);
    expect(peak(pcm.samples)).toBe(0);
  });

  it('honours sampleRate and rejects invalid parameters', () => {
    expect(synthesizeSpeechLike({ text: TEXT, voice: 'v', speed: 1, sampleRate: 16000 }).sampleRate).toBe(16000);
    expect(() => synthesizeSpeechLike({ text: TEXT, voice: 'v', speed: 0 })).toThrow(RangeError);
    expect(() => synthesizeSpeechLike({ text: TEXT, voice: 'v', speed: Number.NaN })).toThrow(RangeError);
    expect(() => synthesizeSpeechLike({ text: TEXT, voice: 'v', speed: 1, pitch: 51 })).toThrow(RangeError);
    expect(() => synthesizeSpeechLike({ text: TEXT, voice: 'v', speed: 1, sampleRate: 1000 })).toThrow(RangeError);
    // Extreme but valid pitches still yield finite, bounded audio.
    for (const pitch of [-50, 50]) {
      const pcm = synthesizeSpeechLike({ text: TEXT, voice: 'v', speed: 1, pitch });
      expect(pcm.samples.every(Number.isFinite)).toBe(true);
      expect(peak(pcm.samples)).toBeLessThanOrEqual(0.5 + 1e-6);
    }
  });
});

describe('resample / concatPcm', () => {
  it('resamples linearly, preserving duration and waveform', () => {
    const source = sine(200, 0.5, 0.5, 16000);
    const out = resample(source, 24000);
    expect(out.sampleRate).toBe(24000);
    expect(out.samples.length).toBe(12000);
    const reference = sine(200, 0.5, 0.5, 24000);
    let maxError = 0;
    for (let i = 0; i < out.samples.length - 2; i++) maxError = Math.max(maxError, Math.abs(out.samples[i] - reference.samples[i]));
    expect(maxError).toBeLessThan(0.01);
    expect(resample(source, 16000)).toBe(source);
  });

  it('joins parts with length = sum - crossfades, resampling to the first rate', () => {
    const a = sine(200, 0.5, 0.4);
    const b = sine(300, 0.3, 0.4, 16000);
    const c = sine(250, 0.2, 0.4);
    const joined = concatPcm([a, b, c]); // default 10 ms crossfade = 240 samples per seam
    expect(joined.sampleRate).toBe(SAMPLE_RATE);
    expect(joined.samples.length).toBe(12000 + 7200 + 4800 - 2 * 240);
    expectDurationClose(durationSeconds(joined), 0.5 + 0.3 + 0.2 - 0.02);

    const noFade = concatPcm([a, b, c], { crossfadeMs: 0 });
    expect(noFade.samples.length).toBe(12000 + 7200 + 4800);
    expect(concatPcm([a, c], { crossfadeMs: 50 }).samples.length).toBe(12000 + 4800 - 1200);
  });

  it('removes the click at a seam between mismatched chunks', () => {
    // First chunk ends near +0.4, second starts at -0.4: a hard cut jumps by ~0.8.
    const a = sine(200, 0.25 + 1 / 800, 0.4); // ends at the positive peak
    const b = sine(200, 0.25, 0.4, SAMPLE_RATE, -Math.PI / 2); // starts at the negative peak
    const naturalStep = (2 * Math.PI * 200 * 0.4) / SAMPLE_RATE; // ~0.021

    const hardCut = concatPcm([a, b], { crossfadeMs: 0 });
    expect(maxAdjacentJump(hardCut.samples)).toBeGreaterThan(0.7);

    const faded = concatPcm([a, b]);
    const seam = a.samples.length - 240;
    expect(maxAdjacentJump(faded.samples, seam - 10, seam + 250)).toBeLessThan(naturalStep * 2);
    expect(peak(faded.samples)).toBeLessThanOrEqual(1);
  });

  it('joins synthesized chunks without a jump larger than the chunks themselves contain', () => {
    const parts = ['First sentence here.', 'And a second one', 'third!'].map((text) => synthesizeSpeechLike({ text, voice: 'mock-voice-3', speed: 1 }));
    const joined = concatPcm(parts, { crossfadeMs: 10 });
    const expectedLength = parts.reduce((sum, p) => sum + p.samples.length, 0) - 2 * 240;
    expect(joined.samples.length).toBe(expectedLength);
    const worstInside = Math.max(...parts.map((p) => maxAdjacentJump(p.samples)));
    expect(maxAdjacentJump(joined.samples)).toBeLessThanOrEqual(worstInside + 1e-6);
  });

  it('joins 16-bit WAV chunks in 16-bit like the float join, within one step of quantisation', async () => {
    const parts = ['First sentence here.', 'And a second one', 'third!'].map((text) => synthesizeSpeechLike({ text, voice: 'mock-voice-3', speed: 1 }));
    const wavs = await Promise.all(parts.map(async (p) => (await encode(p, 'wav')).data));
    const joined = joinMono16Wavs(wavs)!;
    expect(joined.sampleRate).toBe(SAMPLE_RATE);
    expect(probe(joined.data, 'wav')).toMatchObject({ ok: true });
    const viaFloat = concatPcm(await Promise.all(wavs.map((w) => decode(w, 'wav'))));
    const direct = await decode(joined.data, 'wav');
    expect(joined.frames).toBe(viaFloat.samples.length);
    expect(direct.samples.length).toBe(viaFloat.samples.length);
    let worst = 0;
    for (let i = 0; i < direct.samples.length; i++) worst = Math.max(worst, Math.abs(direct.samples[i] - viaFloat.samples[i]));
    expect(worst).toBeLessThanOrEqual(1.5 / 32768);
    // Not all mono 16-bit of one rate: the caller falls back to decode + concatPcm + encode.
    const other = (await encode(sine(200, 0.2, 0.3, 16000), 'wav')).data;
    expect(joinMono16Wavs([wavs[0], other])).toBeNull();
    expect(joinMono16Wavs([Buffer.from('not a wav at all')])).toBeNull();
    expect(joinMono16Wavs([])).toBeNull();
  });

  it("gives concatPcm's samples as blocks, taking each part only when reached", async () => {
    const parts = [sine(200, 0.5, 0.4), sine(300, 0.3, 0.4, 16000), sine(250, 0.004, 0.4), sine(220, 0.2, 0.4)];
    const whole = concatPcm(parts);
    const taken: number[] = [];
    const blocks = concatPcmBlocks(parts.map((p, i) => () => (taken.push(i), p)));
    const got: number[] = [];
    let r = await blocks.next();
    expect(taken).toEqual([0, 1]); // the first block needs the second part's length for its seam
    for (; !r.done; r = await blocks.next()) got.push(...r.value);
    expect(r.value).toEqual({ sampleRate: SAMPLE_RATE, samples: whole.samples.length });
    expect(Float32Array.from(got)).toEqual(whole.samples);
    // Encoding the blocks gives a file of the same duration as encoding the whole.
    for (const format of ['mp3', 'ogg', 'wav'] as const) {
      const streamed = await encodeBlocks(concatPcmBlocks(parts.map((p) => () => p)), SAMPLE_RATE, format);
      const direct = await encode(whole, format);
      expect(streamed.durationSeconds).toBeCloseTo(durationSeconds(whole), 6);
      expect(probe(streamed.data, format)).toMatchObject({ ok: true });
      expect(Math.abs(streamed.data.length - direct.data.length)).toBeLessThanOrEqual(direct.data.length * 0.02);
    }
  });

  it('rejects an empty list and negative crossfades', () => {
    expect(() => concatPcm([])).toThrow(/at least one/);
    expect(() => concatPcm([sine(100, 0.1, 0.1)], { crossfadeMs: -1 })).toThrow(RangeError);
  });
});

describe('codec round trips', () => {
  const speech = synthesizeSpeechLike({ text: TEXT, voice: 'mock-voice-1', speed: 1 });
  const expected = expectedSeconds(TEXT, 1);

  it('maps formats to content types', () => {
    expect(contentTypeFor('mp3')).toBe('audio/mpeg');
    expect(contentTypeFor('wav')).toBe('audio/wav');
    expect(contentTypeFor('ogg')).toBe('audio/ogg');
  });

  it.each(AUDIO_FORMATS.map((format) => [format]))('%s: synthesize -> encode -> probe -> decode', async (format) => {
    const encoded = await encode(speech, format);
    expect(encoded.sampleRate).toBe(SAMPLE_RATE);
    expect(encoded.bitrate).toBeGreaterThan(8000);
    expect(encoded.data.length).toBeGreaterThan(1000);

    const probed = probe(encoded.data, format);
    expect(probed).toEqual({ ok: true, durationSeconds: expect.any(Number) });
    if (probed.ok) expectDurationClose(probed.durationSeconds, expected);

    const decoded = await decode(encoded.data, format);
    expect(decoded.sampleRate).toBe(SAMPLE_RATE);
    expectDurationClose(durationSeconds(decoded), expected);
    // Real content check: loudness and loudness contour survive the codec.
    expect(rms(decoded.samples) / rms(speech.samples)).toBeGreaterThan(0.7);
    expect(rms(decoded.samples) / rms(speech.samples)).toBeLessThan(1.3);
    expect(envelopeSimilarity(speech, decoded)).toBeGreaterThan(0.9);
  });

  it('wav round trip is lossless up to 16-bit quantisation', async () => {
    const decoded = await decode((await encode(speech, 'wav')).data, 'wav');
    expect(decoded.samples.length).toBe(speech.samples.length);
    let maxError = 0;
    for (let i = 0; i < speech.samples.length; i++) maxError = Math.max(maxError, Math.abs(decoded.samples[i] - speech.samples[i]));
    expect(maxError).toBeLessThan(2 / 32768);
  });

  it.each(AUDIO_FORMATS.map((format) => [format]))('%s encoding is deterministic', async (format) => {
    const again = synthesizeSpeechLike({ text: TEXT, voice: 'mock-voice-1', speed: 1 });
    const [first, second] = await Promise.all([encode(speech, format), encode(again, format)]);
    expect(first.data.equals(second.data)).toBe(true);
  });

  it('concurrent encodes do not interfere with each other', async () => {
    const inputs = ['one', 'two two', 'three three three', 'four'].map((text) =>
      synthesizeSpeechLike({ text: text.repeat(8), voice: 'mock-voice-2', speed: 1 }),
    );
    for (const format of ['mp3', 'ogg'] as const) {
      const sequential: Buffer[] = [];
      for (const pcm of inputs) sequential.push((await encode(pcm, format)).data);
      const concurrent = await Promise.all(inputs.map((pcm) => encode(pcm, format)));
      concurrent.forEach((result, i) => expect(result.data.equals(sequential[i])).toBe(true));
    }
  });

  it('speed 2 halves the decoded duration', async () => {
    const fast = synthesizeSpeechLike({ text: TEXT, voice: 'mock-voice-1', speed: 2 });
    for (const format of AUDIO_FORMATS) {
      const decoded = await decode((await encode(fast, format)).data, format);
      expectDurationClose(durationSeconds(decoded), expected / 2);
    }
  });

  it.each([['mp3'], ['ogg']] as const)('%s quality tiers are ordered by size and bitrate', async (format) => {
    const [low, standard, high] = await Promise.all((['low', 'standard', 'high'] as const).map((quality) => encode(speech, format, { quality })));
    expect(low.data.length).toBeLessThan(standard.data.length);
    expect(standard.data.length).toBeLessThan(high.data.length);
    expect(low.bitrate).toBeLessThan(standard.bitrate);
    expect(standard.bitrate).toBeLessThan(high.bitrate);
    const medium = await encode(speech, format, { quality: 'medium' });
    expect(medium.data.equals(standard.data)).toBe(true);
  });

  it('reports bitrate in bits per second', async () => {
    expect((await encode(speech, 'wav')).bitrate).toBe(24000 * 16);
    expect((await encode(speech, 'mp3', { quality: 'standard' })).bitrate).toBe(64000);
    const ogg = await encode(speech, 'ogg');
    expect(ogg.bitrate).toBeGreaterThan(16000);
    expect(ogg.bitrate).toBeLessThan(128000);
  });

  it('mp3 keeps supported sample rates and moves others to an MPEG rate', async () => {
    const at16k = synthesizeSpeechLike({ text: 'sample rate test', voice: 'v', speed: 1, sampleRate: 16000 });
    const mp3At16k = await encode(at16k, 'mp3');
    expect(mp3At16k.sampleRate).toBe(16000);
    expect((await decode(mp3At16k.data, 'mp3')).sampleRate).toBe(16000);

    const odd = synthesizeSpeechLike({ text: 'sample rate test', voice: 'v', speed: 1, sampleRate: 16001 });
    const mp3Odd = await encode(odd, 'mp3');
    expect(mp3Odd.sampleRate).toBe(22050);
    const decoded = await decode(mp3Odd.data, 'mp3');
    expect(decoded.sampleRate).toBe(22050);
    expectDurationClose(durationSeconds(decoded), durationSeconds(odd));
  });

  it('transcodes between formats', async () => {
    const wav = await encode(speech, 'wav');
    const mp3 = await transcode(wav.data, 'wav', 'mp3');
    expect(probe(mp3.data, 'mp3').ok).toBe(true);
    const ogg = await transcode(mp3.data, 'mp3', 'ogg', { quality: 'low' });
    const decoded = await decode(ogg.data, 'ogg');
    expectDurationClose(durationSeconds(decoded), expected);
    expect(envelopeSimilarity(speech, decoded)).toBeGreaterThan(0.85);
  });
});

describe('wav decoding variants', () => {
  function floatStereoWav(left: Float32Array, right: Float32Array, sampleRate: number): Buffer {
    const dataBytes = left.length * 8;
    const out = Buffer.alloc(44 + dataBytes);
    out.write('RIFF', 0, 'ascii');
    out.writeUInt32LE(36 + dataBytes, 4);
    out.write('WAVEfmt ', 8, 'ascii');
    out.writeUInt32LE(16, 16);
    out.writeUInt16LE(3, 20); // IEEE float
    out.writeUInt16LE(2, 22);
    out.writeUInt32LE(sampleRate, 24);
    out.writeUInt32LE(sampleRate * 8, 28);
    out.writeUInt16LE(8, 32);
    out.writeUInt16LE(32, 34);
    out.write('data', 36, 'ascii');
    out.writeUInt32LE(dataBytes, 40);
    for (let i = 0; i < left.length; i++) {
      out.writeFloatLE(left[i], 44 + i * 8);
      out.writeFloatLE(right[i], 48 + i * 8);
    }
    return out;
  }

  it('decodes 32-bit float stereo by averaging the channels', async () => {
    const left = Float32Array.from([0.5, -0.25, 1, 0]);
    const right = Float32Array.from([0.1, -0.75, 1, 0.3]);
    const wav = floatStereoWav(left, right, 22050);
    expect(probe(wav, 'wav')).toEqual({ ok: true, durationSeconds: 4 / 22050 });
    const pcm = await decode(wav, 'wav');
    expect(pcm.sampleRate).toBe(22050);
    expect(Array.from(pcm.samples)).toEqual([0.3, -0.5, 1, 0.15].map((v) => Math.fround(v)));
  });

  it('skips unknown chunks before the data chunk', async () => {
    const plain = (await encode(sine(440, 0.1, 0.5), 'wav')).data;
    const list = Buffer.from('LIST\x05\x00\x00\x00abcde\x00', 'latin1'); // odd size -> pad byte
    const withList = Buffer.concat([plain.subarray(0, 36), list, plain.subarray(36)]);
    withList.writeUInt32LE(withList.length - 8, 4);
    expect(probe(withList, 'wav')).toEqual(probe(plain, 'wav'));
    expect((await decode(withList, 'wav')).samples).toEqual((await decode(plain, 'wav')).samples);
  });
});

describe('probe', () => {
  const speech = synthesizeSpeechLike({ text: TEXT, voice: 'mock-voice-2', speed: 1 });
  const encoded: Partial<Record<AudioFormat, Buffer>> = {};
  beforeAll(async () => {
    for (const format of AUDIO_FORMATS) encoded[format] = (await encode(speech, format)).data;
  });

  it.each(AUDIO_FORMATS.map((format) => [format]))('%s: rejects empty, random and truncated input', (format) => {
    const valid = encoded[format]!;
    expect(probe(valid, format).ok).toBe(true);

    expect(probe(Buffer.alloc(0), format)).toEqual({ ok: false, reason: 'empty input' });
    for (const seed of [1, 2, 3]) expect(probe(seededBytes(5000, seed), format).ok).toBe(false);

    // Cut points deliberately avoid MP3 frame boundaries (see the Xing test for why that matters).
    for (const length of [Math.floor(valid.length * 0.4) + 7, Math.floor(valid.length * 0.73) + 3, valid.length - 100]) {
      const truncated = probe(valid.subarray(0, length), format);
      expect(truncated.ok).toBe(false);
      if (!truncated.ok) expect(truncated.reason).toMatch(/truncated/);
    }
  });

  it('rejects audio labelled with the wrong format', () => {
    expect(probe(encoded.wav!, 'mp3').ok).toBe(false);
    expect(probe(encoded.mp3!, 'ogg').ok).toBe(false);
    expect(probe(encoded.ogg!, 'wav').ok).toBe(false);
  });

  it('mp3: tolerates ID3v2 and ID3v1 tags, rejects lost sync', () => {
    const mp3 = encoded.mp3!;
    const id3v2 = Buffer.concat([Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 20]), Buffer.alloc(20)]);
    const id3v1 = Buffer.concat([Buffer.from('TAG', 'ascii'), Buffer.alloc(125)]);
    const tagged = probe(Buffer.concat([id3v2, mp3, id3v1]), 'mp3');
    expect(tagged).toEqual(probe(mp3, 'mp3'));

    const spliced = Buffer.concat([mp3.subarray(0, 2000), Buffer.alloc(100), mp3.subarray(2000)]);
    expect(probe(spliced, 'mp3').ok).toBe(false);
  });

  it('mp3: frame-aligned truncation is only detectable with a Xing/Info frame count', () => {
    const mp3 = encoded.mp3!;
    const frameBytes = 192; // 64 kbps CBR at 24 kHz, MPEG-2 Layer III, never padded
    expect(mp3.length % frameBytes).toBe(0);
    const frames = mp3.length / frameBytes;
    const alignedCut = mp3.subarray(0, frameBytes * Math.floor(frames / 2));
    // Without metadata a cut on a frame boundary is structurally a valid, shorter file.
    expect(probe(alignedCut, 'mp3').ok).toBe(true);

    // An "Info" frame (what the LAME CLI writes) carrying the frame count closes that gap.
    const infoFrame = Buffer.alloc(frameBytes);
    mp3.copy(infoFrame, 0, 0, 4); // same frame header as the audio frames
    infoFrame.write('Info', 4 + 9, 'ascii'); // after 9 bytes of MPEG-2 mono side info
    infoFrame.writeUInt32BE(0x01, 4 + 9 + 4); // flags: frame count present
    infoFrame.writeUInt32BE(frames, 4 + 9 + 8);
    const tagged = Buffer.concat([infoFrame, mp3]);
    expect(probe(tagged, 'mp3')).toEqual(probe(mp3, 'mp3'));
    const taggedCut = probe(tagged.subarray(0, frameBytes * (1 + Math.floor(frames / 2))), 'mp3');
    expect(taggedCut).toMatchObject({ ok: false, reason: expect.stringMatching(/truncated: Xing header declares/) });
  });

  it('ogg: detects a corrupted page via CRC', () => {
    const corrupted = Buffer.from(encoded.ogg!);
    corrupted[Math.floor(corrupted.length / 2)] ^= 0xff;
    const result = probe(corrupted, 'ogg');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/CRC/);
  });

  it('wav: rejects a data chunk longer than the file', () => {
    const wav = Buffer.from(encoded.wav!);
    wav.writeUInt32LE(wav.readUInt32LE(40) + 2, 40);
    expect(probe(wav, 'wav')).toMatchObject({ ok: false, reason: expect.stringMatching(/truncated/) });
  });
});

describe('decode errors', () => {
  it.each(AUDIO_FORMATS.map((format) => [format]))('%s: garbage and empty input throw AudioDecodeError', async (format) => {
    await expect(decode(Buffer.alloc(0), format)).rejects.toThrow(AudioDecodeError);
    for (const seed of [7, 8]) {
      const attempt = decode(seededBytes(4096, seed), format);
      await expect(attempt).rejects.toThrow(AudioDecodeError);
      await expect(attempt).rejects.toThrow(new RegExp(`^Cannot decode ${format}: `));
    }
  });

  it('ogg: garbage behind a valid capture pattern is rejected, not a crash', async () => {
    const fakeOgg = Buffer.concat([Buffer.from('OggS', 'ascii'), seededBytes(2000, 11)]);
    await expect(decode(fakeOgg, 'ogg')).rejects.toThrow(AudioDecodeError);
  });
});
