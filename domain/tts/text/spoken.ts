/**
 * Spoken ("semantic") form: an approximation of what a TTS engine would say,
 * so that texts which sound the same ("Dr. Smith paid $5.50" / "Doctor Smith
 * paid five dollars and fifty cents") share one cache entry.
 *
 * Guiding rule: when a rewrite is ambiguous, keep the distinction. Two texts
 * wrongly sharing a key means a user hears the wrong audio; a missed
 * equivalence only costs one extra synthesis.
 *
 * English (language undefined, blank, or starting with "en") gets the full
 * verbalisation below. Other languages get no word-level rewriting at all,
 * because number and symbol words are language-specific ("&" is "und" in
 * German, "3,5" is a decimal in French); they only get the language-neutral
 * steps: content normalisation and the punctuation reduction at the end.
 */

import { expandEmailsAndDomains, expandAbbreviations, expandSaintOrStreet, expandMeridiem, expandDottedAcronyms } from './spoken-words';
import {
  expandRanges,
  expandMoney,
  expandPercentages,
  expandTimes,
  expandOrdinals,
  expandDecades,
  expandUnits,
  expandSymbols,
  expandNumbers,
} from './spoken-numbers';
import { canonicalizeTypography, cleanPresentation, stripMarkdown, stripTags, untilStable } from './normalize';

/** Whether `language` gets the English verbalisation rules. */
export function isEnglish(language?: string): boolean {
  const tag = (language ?? '').trim().toLowerCase();
  return tag === '' || tag.startsWith('en');
}

/**
 * The spoken form of `text`: English numbers, money, units, abbreviations and
 * symbols written out as words, then content-normalised (lowercase, canonical
 * typography), then reduced to the punctuation that changes delivery: commas
 * (pauses) and ". ! ?" (intonation). Quotes and brackets are dropped; ";", ":"
 * and spaced dashes become commas; hyphens inside words become spaces.
 */
export function toSpokenForm(text: string, language?: string): string {
  let s = cleanPresentation(text);
  if (isEnglish(language)) s = verbalizeEnglish(s);
  // normalizeContent(s), minus markup stripping, which already ran (a second
  // run would decode "&amp;lt;" twice).
  s = canonicalizeTypography(s).toLowerCase();
  // Dropping quotes can expose markup ('"* a' -> "* a", '<a">' -> "<a >") or
  // leave punctuation runs ("!" "!"); settle so that the spoken form of a
  // spoken form is itself.
  return untilStable(s, (form) => canonicalizeTypography(reduceToSpokenPunctuation(stripTags(stripMarkdown(form)))));
}

// ---------------------------------------------------------------------------
// English verbalisation
// ---------------------------------------------------------------------------

function verbalizeEnglish(text: string): string {
  let s = text;
  s = s.replace(/metre/gi, 'meter').replace(/litre/gi, 'liter'); // same sound, one spelling
  s = expandEmailsAndDomains(s);
  s = expandAbbreviations(s);
  s = expandSaintOrStreet(s);
  s = expandMeridiem(s);
  s = expandDottedAcronyms(s);
  s = expandRanges(s);
  s = expandMoney(s);
  s = expandPercentages(s);
  s = expandTimes(s);
  s = expandOrdinals(s);
  s = expandDecades(s);
  s = expandUnits(s);
  s = expandSymbols(s);
  s = expandNumbers(s);
  return s;
}

// ---------------------------------------------------------------------------
// Punctuation reduction (language-neutral)
// ---------------------------------------------------------------------------

/**
 * Keeps only punctuation that changes delivery: "," for pauses and ". ! ?"
 * (and "...") for intonation. Runs on lowercase, typographically canonical text.
 */
function reduceToSpokenPunctuation(text: string): string {
  return (
    text
      .replace(/(?<=\p{L})-(?=\p{L})/gu, ' ') // "twenty-one" sounds like "twenty one"
      .replace(/(?<=\p{L})'(?=\p{L})/gu, '') // "don't" sounds like "dont"
      .replace(/["'()[\]{}]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      // Pauses, after the brackets are gone so that ":)" cannot turn into a trailing ":".
      .replace(/(?<=^| )-(?= |$)/g, ',') // a spaced dash
      .replace(/-(?![\p{L}\p{N}])/gu, ' ') // a dangling hyphen ("pre- and post-war") is silent
      .replace(/[;:]+(?=[ ,.!?]|$)/g, ',') // ";" and ": " (but not "10:30" or "3:1")
      .replace(/ +(?=[,.!?])/g, '')
      .replace(/,+/g, ',')
      .replace(/,(?=[.!?])/g, '') // "hello,." -> "hello."
      .replace(/^,+ ?|,+$/g, '') // no pause before the first or after the last word
  );
}
