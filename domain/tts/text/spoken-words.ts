/** English spoken-form rules for words: e-mail addresses and domains, abbreviations, St., a.m./p.m., dotted acronyms. */
import { NOT_BEFORE_WORD, replaceInContext, inPlace, abbreviationDot, type MatchContext } from './spoken-context';

const EMAIL = /(?<![\w.+-])[\w+-]+(?:\.[\w+-]+)*@[\w-]+(?:\.[\w-]+)+/g;
// Any case: the output is lowercased and must not turn into a domain on a second pass.
const DOMAIN = /(?<![\w@.-])(?:[\p{L}\p{N}-]+\.)+[a-z]{2,}(?![\p{L}\p{N}-])/giu;

/** "support@example.com" -> "support at example dot com". */
export function expandEmailsAndDomains(text: string): string {
  const speak = (ctx: MatchContext) => inPlace(ctx.match.replace(/\./g, ' dot ').replace(/@/g, ' at '), ctx);
  return replaceInContext(replaceInContext(text, EMAIL, speak), DOMAIN, speak);
}

interface Abbreviation {
  /** Regex source of the written forms, without the trailing dot. */
  readonly forms: string;
  readonly spoken: string;
  /** Whether the abbreviation's dot can double as a full stop ("apples, etc. Then"). */
  readonly canEndSentence: boolean;
  /**
   * When the form may also be written without a dot: before a capitalised
   * name ("Dr Smith"), before a number ("Jan 5"), or anywhere as a whole word
   * ("vs"). Without this, the dot is required.
   */
  readonly withoutDot?: 'beforeName' | 'beforeNumber' | 'wholeWord';
  /** Extra condition on what follows (regex lookahead source). */
  readonly onlyBefore?: string;
  /**
   * Forms that are also lowercase words must match in any case: the output is
   * lowercased, and the spoken form of a spoken form must not change again.
   */
  readonly anyCase?: boolean;
}

const BEFORE_NAME = String.raw`(?=\s+["'(]*\p{Lu})`;
const WITHOUT_DOT: Record<NonNullable<Abbreviation['withoutDot']>, string> = {
  beforeName: BEFORE_NAME,
  beforeNumber: String.raw`(?=\s+\d)`,
  wholeWord: NOT_BEFORE_WORD,
};

const MONTHS: ReadonlyArray<readonly [string, string]> = [
  ['Jan', 'January'],
  ['Feb', 'February'],
  ['Mar', 'March'],
  ['Apr', 'April'],
  ['Jun', 'June'],
  ['Jul', 'July'],
  ['Aug', 'August'],
  ['Sept|Sep', 'September'],
  ['Oct', 'October'],
  ['Nov', 'November'],
  ['Dec', 'December'],
];

// Titles are case-sensitive on purpose: "MS" (Microsoft, multiple sclerosis) is not "Ms.",
// and a lowercase "dr" or "no" is not an abbreviation.
const ABBREVIATIONS: readonly Abbreviation[] = [
  { forms: 'Dr|DR', spoken: 'doctor', canEndSentence: false, withoutDot: 'beforeName' },
  { forms: 'Mrs|MRS', spoken: 'missus', canEndSentence: false, withoutDot: 'beforeName' },
  { forms: 'Mr|MR', spoken: 'mister', canEndSentence: false, withoutDot: 'beforeName' },
  { forms: 'Ms', spoken: 'miz', canEndSentence: false, withoutDot: 'beforeName' },
  { forms: 'Prof|PROF', spoken: 'professor', canEndSentence: false, withoutDot: 'beforeName' },
  { forms: 'Jr|JR', spoken: 'junior', canEndSentence: true, withoutDot: 'wholeWord' },
  { forms: 'Sr|SR', spoken: 'senior', canEndSentence: true, withoutDot: 'wholeWord' },
  { forms: 'vs', spoken: 'versus', canEndSentence: false, withoutDot: 'wholeWord', anyCase: true },
  { forms: 'etc', spoken: 'et cetera', canEndSentence: true, withoutDot: 'wholeWord', anyCase: true },
  { forms: String.raw`e\.\s?g`, spoken: 'for example', canEndSentence: false, withoutDot: 'wholeWord', anyCase: true },
  { forms: String.raw`i\.\s?e`, spoken: 'that is', canEndSentence: false, withoutDot: 'wholeWord', anyCase: true },
  { forms: 'approx', spoken: 'approximately', canEndSentence: false, withoutDot: 'wholeWord', anyCase: true },
  // Lowercase "no." is far more often the word "no" ending a sentence.
  { forms: 'No|NO', spoken: 'number', canEndSentence: false, onlyBefore: String.raw`(?=\s*\d)` },
  ...MONTHS.map(([forms, spoken]): Abbreviation => ({
    forms,
    spoken,
    canEndSentence: true,
    withoutDot: 'beforeNumber',
  })),
];

const ABBREVIATION_PATTERNS = ABBREVIATIONS.map((abbreviation) => {
  const dot = abbreviation.withoutDot ? `(?:(\\.)|${WITHOUT_DOT[abbreviation.withoutDot]})` : '(\\.)';
  const source = `(?<![\\p{L}\\p{N}.'])(?:${abbreviation.forms})${dot}${abbreviation.onlyBefore ?? ''}`;
  return { abbreviation, pattern: new RegExp(source, abbreviation.anyCase ? 'giu' : 'gu') };
});

export function expandAbbreviations(text: string): string {
  let s = text;
  for (const { abbreviation, pattern } of ABBREVIATION_PATTERNS) {
    s = replaceInContext(s, pattern, (ctx) => {
      const dot = abbreviationDot(ctx.groups[0] !== undefined, ctx, abbreviation.canEndSentence);
      return inPlace(abbreviation.spoken + dot, ctx);
    });
  }
  return s;
}

const SAINT_OR_STREET = new RegExp(String.raw`(?<![\p{L}\p{N}.'])(?:St|ST)(?:(\.)|${BEFORE_NAME})`, 'gu');

/**
 * "St." is "saint" before a capitalised name ("St. Louis", "Visit St. Paul")
 * and "street" otherwise ("Main St.", "on Elm St. near ..."). A capitalised or
 * numeric word right before it, other than a sentence's first word, marks a
 * street name: "I live on Main St. Bob lives ..." -> "Main street."
 */
export function expandSaintOrStreet(text: string): string {
  return replaceInContext(text, SAINT_OR_STREET, (ctx) => {
    const { groups, before, after } = ctx;
    const hadDot = groups[0] !== undefined;
    const beforeName = /^\s+["'(]*\p{Lu}/u.test(after);
    const previous = /(\S+)\s+$/.exec(before);
    const previousStartsSentence = !previous || /(?:^|[.!?]["')\]]*)\s*$/.test(before.slice(0, previous.index));
    const followsStreetName = !!previous && /^[\p{Lu}\d]/u.test(previous[1]) && !previousStartsSentence;
    if (beforeName && !followsStreetName) return inPlace('saint', ctx);
    return inPlace(`street${abbreviationDot(hadDot, ctx, true)}`, ctx);
  });
}

/** "5 p.m." / "5pm" / "5 PM" -> "5 p m"; the dot of "p.m." may end the sentence. */
export function expandMeridiem(text: string): string {
  const pattern = /(?<=\d\s?)([AaPp])\.?\s?[Mm](\.)?(?![\p{L}\p{N}])/gu;
  return replaceInContext(text, pattern, (ctx) => inPlace(`${ctx.groups[0]!.toLowerCase()} m${abbreviationDot(ctx.groups[1] !== undefined, ctx, true)}`, ctx));
}

/** "U.S." -> "U S": dotted initialisms are spelled out letter by letter. */
export function expandDottedAcronyms(text: string): string {
  const pattern = /(?<![\p{L}\p{N}.])((?:\p{L}\.)+\p{L})(\.)?(?![\p{L}\p{N}])/gu;
  return replaceInContext(text, pattern, (ctx) => inPlace(ctx.groups[0]!.split('.').join(' ') + abbreviationDot(ctx.groups[1] !== undefined, ctx, true), ctx));
}
