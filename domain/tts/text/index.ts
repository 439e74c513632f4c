/**
 * Pure text layer of the TTS cache: content normalisation, spoken (semantic)
 * form, sentence splitting/chunking for progressive generation, and cache keys.
 */

export * from './normalize';
export * from './spoken';
export * from './numbers';
export * from './chunk';
export * from './hash';
