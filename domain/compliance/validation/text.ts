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
  for (const needle of needlesOf(keyword)) if (normalisedText.includes(needle)) return true;
  return false;
}

/**
 * A keyword's padded forms (` phrase `, ` phrases `, ` phrasees `), kept: keywords are the
 * catalogue's (a few hundred), and normalising them (and building the padded strings) again for
 * every text checked was most of a validation's time and of a create's clause mapping (issue #36).
 * Bounded all the same. An empty phrase matches nothing.
 */
const needles = new Map<string, readonly string[]>();
const MAX_PHRASES = 10_000;
function needlesOf(keyword: string): readonly string[] {
  let forms = needles.get(keyword);
  if (forms === undefined) {
    const phrase = normaliseText(keyword).trim();
    forms = phrase ? [` ${phrase} `, ` ${phrase}s `, ` ${phrase}es `] : [];
    if (needles.size < MAX_PHRASES) needles.set(keyword, forms);
  }
  return forms;
}

/**
 * Words one of which a normalised text must hold for `keyword` to occur in it: a phrase's first word,
 * or a single word with its tolerated endings. A text's word set rules most keywords out with one
 * lookup each, before any substring search (issue #36: a create maps its text to clauses).
 */
export function leadWordsOf(keyword: string): readonly string[] {
  let lead = leads.get(keyword);
  if (lead === undefined) {
    const forms = needlesOf(keyword);
    const words = forms.length ? forms[0].trim().split(' ') : [];
    lead = words.length === 0 ? [] : words.length > 1 ? [words[0]] : [words[0], `${words[0]}s`, `${words[0]}es`];
    if (leads.size < MAX_PHRASES) leads.set(keyword, lead);
  }
  return lead;
}
const leads = new Map<string, readonly string[]>();

/** The words of texts made by `normaliseText`. */
export function wordsOf(normalisedTexts: readonly string[]): Set<string> {
  const words = new Set<string>();
  for (const text of normalisedTexts) for (const word of text.split(' ')) if (word) words.add(word);
  return words;
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
