import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createEncoder, type WasmMediaEncoder } from 'wasm-media-encoders';

/**
 * Loading of the WASM encoder/decoder packages, isolated here because of two packaging quirks:
 *
 * - wasm-media-encoders ships a CommonJS build, but its default `createMp3Encoder()` re-compiles
 *   the inlined base64 WASM on every call. We compile each binary once and instantiate a fresh
 *   encoder per job from the cached module (cheap), so concurrent jobs never share state.
 *
 * - mpg123-decoder and @wasm-audio-decoders/ogg-vorbis are ESM-only ("type": "module"). Jest's
 *   CommonJS runtime cannot `require()` them, and Node only can from 20.19. Both ship a
 *   self-contained UMD bundle in dist/, but because of "type": "module" Node would load that
 *   file as ESM too (where the UMD wrapper finds no `exports`). So we evaluate the bundle with
 *   explicit CommonJS bindings, which behaves identically under jest and compiled Node.
 */

export type EncoderMimeType = 'audio/mpeg' | 'audio/ogg';
type EncoderWasm = Parameters<typeof createEncoder>[1];

const ENCODER_WASM_FILES: Record<EncoderMimeType, string> = {
  'audio/mpeg': 'wasm-media-encoders/wasm/mp3',
  'audio/ogg': 'wasm-media-encoders/wasm/ogg',
};

// TypeScript only declares WebAssembly in lib.dom, which this Node project does not enable.
const wasmRuntime = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<EncoderWasm> } }).WebAssembly;

const compiledEncoders = new Map<EncoderMimeType, Promise<EncoderWasm>>();

function compiledEncoderModule(mimeType: EncoderMimeType): Promise<EncoderWasm> {
  let compiled = compiledEncoders.get(mimeType);
  if (!compiled) {
    compiled = readFile(require.resolve(ENCODER_WASM_FILES[mimeType])).then((bytes) => wasmRuntime.compile(bytes));
    // Do not cache a failure forever: a later call may succeed (e.g. transient I/O error).
    compiled.catch(() => compiledEncoders.delete(mimeType));
    compiledEncoders.set(mimeType, compiled);
  }
  return compiled;
}

/** A new, independent encoder instance backed by the cached compiled module. */
export async function createMediaEncoder<T extends EncoderMimeType>(mimeType: T): Promise<WasmMediaEncoder<T>> {
  return createEncoder(mimeType, await compiledEncoderModule(mimeType));
}

export interface DecodedChannels {
  channelData: Float32Array[];
  samplesDecoded: number;
  sampleRate: number;
}

/**
 * The slice of the decoder APIs we use. Declared locally rather than imported from the packages'
 * typings, because those are ESM typings that CommonJS code can only reference with
 * moduleResolution-specific syntax, and we load the UMD bundles ourselves anyway.
 */
interface WasmDecoder {
  readonly ready: Promise<void>;
  free(): void;
}
interface MpegDecoder extends WasmDecoder {
  decode(data: Uint8Array): DecodedChannels;
}
interface OggVorbisDecoder extends WasmDecoder {
  decodeFile(data: Uint8Array): Promise<DecodedChannels>;
}
type MpegDecoderModule = { MPEGDecoder: new () => MpegDecoder };
type OggVorbisDecoderModule = { OggVorbisDecoder: new () => OggVorbisDecoder };

// Loaded lazily: evaluating each bundle costs ~20 ms and most processes only need one of them.
let mpegDecoderModule: MpegDecoderModule | undefined;
let oggVorbisDecoderModule: OggVorbisDecoderModule | undefined;

/** Decodes a complete MP3 buffer with a short-lived decoder instance. */
export async function decodeMpegAudio<T>(data: Uint8Array, use: (decoded: DecodedChannels) => T): Promise<T> {
  mpegDecoderModule ??= loadUmdBundle<MpegDecoderModule>('mpg123-decoder', 'dist/mpg123-decoder.min.js');
  const decoder = new mpegDecoderModule.MPEGDecoder();
  try {
    await decoder.ready;
    // `use` runs before free(): the decoded arrays must not outlive the WASM instance's lifetime.
    return use(decoder.decode(data));
  } finally {
    decoder.free();
  }
}

/** Decodes a complete Ogg Vorbis file with a short-lived decoder instance. */
export async function decodeOggVorbisAudio<T>(data: Uint8Array, use: (decoded: DecodedChannels) => T): Promise<T> {
  oggVorbisDecoderModule ??= loadUmdBundle<OggVorbisDecoderModule>('@wasm-audio-decoders/ogg-vorbis', 'dist/ogg-vorbis-decoder.min.js');
  const decoder = new oggVorbisDecoderModule.OggVorbisDecoder();
  try {
    await decoder.ready;
    return use(await decoder.decodeFile(data));
  } finally {
    decoder.free();
  }
}

function loadUmdBundle<T>(packageName: string, bundlePath: string): T {
  // Resolving the package entry is allowed by its "exports" map; the dist file itself is not exported.
  const file = path.join(path.dirname(require.resolve(packageName)), bundlePath);
  const source = readFileSync(file, 'utf8');
  const commonJsModule = { exports: {} as T };
  const factory = new Function('exports', 'require', 'module', '__filename', '__dirname', `${source}\n//# sourceURL=${file}`);
  factory.call(commonJsModule.exports, commonJsModule.exports, createRequire(file), commonJsModule, file, path.dirname(file));
  return commonJsModule.exports;
}
