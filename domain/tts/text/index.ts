/** Pure text layer of the TTS cache: normalisation, spoken form, chunking, hashing. */

export { normalizeContent, stripMarkup, canonicalizeTypography } from './normalize';
export { toSpokenForm, isEnglish } from './spoken';
export { splitSentences, chunkText, collapseWhitespace } from './chunk';
export type { ChunkOptions } from './chunk';
export {
  HASH_MODES,
  canonicalOptions,
  canonicalLanguage,
  computeHash,
  computeHashes,
  textForms,
} from './hash';
export type { HashMode, AudioAffectingOptions, TextForms } from './hash';
export {
  integerToWords,
  integerToOrdinalWords,
  numeralToWords,
  digitsToWords,
  pluralizeNumberWords,
} from './numbers';
