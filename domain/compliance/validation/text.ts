/**
 * Text helpers shared by the validation rules. Everything here is pure and
 * locale-independent so results are identical on every machine.
 */

/**
 * Lower-cases and replaces every run of non letters/digits with one space, padded
 * with spaces on both sides. Padding lets callers test for whole phrases with a
 * plain `includes(' phrase ')`, which makes "audit-trail", "Audit Trail" and
 * "audit trail." all equal while "breakfast" never matches "fast".
 */
export function normaliseText(text: string | null | undefined): string {
  if (!text) return ' ';
  const collapsed = text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  return collapsed ? ` ${collapsed} ` : ' ';
}

/**
 * Whole-word phrase match against text produced by `normaliseText`. A trailing
 * "s"/"es" is tolerated so catalogue keywords can stay singular.
 */
export function containsKeyword(normalisedText: string, keyword: string): boolean {
  const phrase = phraseOf(keyword);
  if (!phrase) return false;
  return normalisedText.includes(` ${phrase} `) || normalisedText.includes(` ${phrase}s `) || normalisedText.includes(` ${phrase}es `);
}

/**
 * A keyword's normalised phrase, kept: keywords are the catalogue's (a few hundred), and normalising
 * them again for every requirement checked was most of a validation's time. Bounded all the same.
 */
const phrases = new Map<string, string>();
const MAX_PHRASES = 10_000;
function phraseOf(keyword: string): string {
  let phrase = phrases.get(keyword);
  if (phrase === undefined) {
    phrase = normaliseText(keyword).trim();
    if (phrases.size < MAX_PHRASES) phrases.set(keyword, phrase);
  }
  return phrase;
}

/** First keyword (in list order) found in any of the texts, for explainable messages. */
export function findKeyword(normalisedTexts: readonly string[], keywords: readonly string[]): string | undefined {
  return keywords.find((keyword) => normalisedTexts.some((text) => containsKeyword(text, keyword)));
}

export function countWords(text: string): number {
  const normalised = normaliseText(text).trim();
  return normalised ? normalised.split(' ').length : 0;
}

/** Shortens text for quoting inside a message. */
export function excerpt(text: string, max = 60): string {
  const singleLine = text.replace(/\s+/g, ' ').trim();
  return singleLine.length <= max ? singleLine : `${singleLine.slice(0, max - 1).trimEnd()}…`;
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * Builds a case-insensitive, whole-word matcher for a term that may contain
 * punctuation ("and/or", "etc"). Spaces and hyphens inside the term match
 * either separator, so "user-friendly" also catches "user friendly".
 */
export function termPattern(term: string): RegExp {
  const body = term
    .split(/[\s-]+/)
    .map(escapeRegExp)
    .join('[\\s-]+');
  return new RegExp(`(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])`, 'iu');
}
