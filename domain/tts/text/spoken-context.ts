/** What the spoken-form rules share: numeral and sign patterns, and replacement that sees its context. */
/** A plain numeral: "1,234.5", "12", "3.14". Thousands groups must be exact. */
export const NUM = String.raw`\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?`;
/** A "-" is a minus sign only where a token starts: not in "5-10" or "COVID-19". */
export const SIGN = String.raw`(?:(?<![^\s(\[{"'/])(-))?`;
/** The match must not continue a word or a number. */
export const NOT_AFTER_WORD = String.raw`(?<![\p{L}\p{N}.,])`;
export const NOT_BEFORE_WORD = String.raw`(?![\p{L}\p{N}])`;

/** How much text around a match the rules may look at; all of them only look nearby. */
const CONTEXT_CHARS = 80;
/** Nothing but closing quotes/brackets and whitespace until the end of the text. */
const REST_IS_END = /["')\]]*\s*$/y;

export interface MatchContext {
  readonly match: string;
  readonly groups: ReadonlyArray<string | undefined>;
  /** Up to CONTEXT_CHARS characters before the match (bounded so long texts stay linear). */
  readonly before: string;
  /** Up to CONTEXT_CHARS characters after the match. */
  readonly after: string;
  /** Whether the match ends the text, ignoring closing quotes/brackets and whitespace. */
  readonly atEnd: boolean;
}

/** String.replace with the text around the match available to the callback. */
export function replaceInContext(text: string, pattern: RegExp, replace: (ctx: MatchContext) => string): string {
  return text.replace(pattern, (...args: unknown[]) => {
    // Callback arguments are (match, ...groups, offset, input); no named groups are used.
    const match = args[0] as string;
    const offset = args[args.length - 2] as number;
    const input = args[args.length - 1] as string;
    const end = offset + match.length;
    REST_IS_END.lastIndex = end;
    return replace({
      match,
      groups: args.slice(1, -2) as Array<string | undefined>,
      before: input.slice(Math.max(0, offset - CONTEXT_CHARS), offset),
      after: input.slice(end, end + CONTEXT_CHARS),
      atEnd: REST_IS_END.test(input),
    });
  });
}

/**
 * Inserts spoken words where the match was, adding a space only next to a
 * letter or digit: "Dr.Smith" -> "doctor Smith", but "COVID-19" keeps its
 * hyphen unspaced ("COVID-nineteen") instead of turning into a spaced dash.
 */
export function inPlace(words: string, { before, after }: MatchContext): string {
  const left = /[\p{L}\p{N}]$/u.test(before) ? ' ' : '';
  const right = /^[\p{L}\p{N}]/u.test(after) ? ' ' : '';
  return left + words + right;
}

/**
 * What an abbreviation's dot becomes. At the very end of the text it is also
 * the full stop. Before a capitalised word it ends the sentence only if the
 * abbreviation can end one ("..., etc. Then"), not if it introduces a name
 * ("Dr. Smith"). Anywhere else it belongs to the abbreviation and is dropped,
 * so "Dr. Smith" does not gain a sentence break.
 */
export function abbreviationDot(hadDot: boolean, { after, atEnd }: MatchContext, canEndSentence: boolean): string {
  if (!hadDot) return '';
  if (atEnd) return '.';
  if (canEndSentence && /^["')\]]*\s+["'(\[]*\p{Lu}/u.test(after)) return '.';
  return '';
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
