/** Audio toolkit for the TTS gateway: PCM helpers, the mock synthesiser and MP3/WAV/Ogg codecs. */
export { concatPcm, concatPcmBlocks, durationSeconds, resample, type ConcatOptions, type Pcm } from './pcm';
export {
  MOCK_CHARS_PER_SECOND,
  MOCK_DEFAULT_SAMPLE_RATE,
  MOCK_MIN_DURATION_SECONDS,
  mockDurationSeconds,
  synthesizeSpeechLike,
  type SynthesisInput,
} from './synth';
export {
  contentTypeFor,
  decode,
  encode,
  encodeBlocks,
  type BlockEncoder,
  type OpenEncoder,
  openLocalEncoder,
  probe,
  transcode,
  type EncodedAudio,
  type EncodeOptions,
  type EncodeQuality,
} from './codec';
export { encodeBlocksLive, type EncodeSink, type TaggedBlock } from './live-encode';
export { joinMono16Wavs } from './wav';
export { joinWavChunks, joinWavChunksInOrder, joinWavChunksLive } from './join';
export { mono16WavHeader, WAV_HEADER_BYTES } from './wav';
export { AUDIO_FORMATS, AudioDecodeError, type AudioFormat, type ProbeResult } from './types';
