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

import { canonicalizeTypography, cleanPresentation, stripMarkdown, stripTags, untilStable } from './normalize';
import {
  integerToOrdinalWords,
  integerToWords,
  numeralToWords,
  pluralizeNumberWords,
  digitsToWords,
} from './numbers';

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
  return untilStable(s, (form) =>
    canonicalizeTypography(reduceToSpokenPunctuation(stripTags(stripMarkdown(form)))),
  );
}

// ---------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------

/** A plain numeral: "1,234.5", "12", "3.14". Thousands groups must be exact. */
const NUM = String.raw`\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?`;
/** A "-" is a minus sign only where a token starts: not in "5-10" or "COVID-19". */
const SIGN = String.raw`(?:(?<![^\s(\[{"'/])(-))?`;
/** The match must not continue a word or a number. */
const NOT_AFTER_WORD = String.raw`(?<![\p{L}\p{N}.,])`;
const NOT_BEFORE_WORD = String.raw`(?![\p{L}\p{N}])`;

/** How much text around a match the rules may look at; all of them only look nearby. */
const CONTEXT_CHARS = 80;
/** Nothing but closing quotes/brackets and whitespace until the end of the text. */
const REST_IS_END = /["')\]]*\s*$/y;

interface MatchContext {
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
function replaceInContext(text: string, pattern: RegExp, replace: (ctx: MatchContext) => string): string {
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
function inPlace(words: string, { before, after }: MatchContext): string {
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
function abbreviationDot(hadDot: boolean, { after, atEnd }: MatchContext, canEndSentence: boolean): string {
  if (!hadDot) return '';
  if (atEnd) return '.';
  if (canEndSentence && /^["')\]]*\s+["'(\[]*\p{Lu}/u.test(after)) return '.';
  return '';
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
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

const EMAIL = /(?<![\w.+-])[\w+-]+(?:\.[\w+-]+)*@[\w-]+(?:\.[\w-]+)+/g;
// Any case: the output is lowercased and must not turn into a domain on a second pass.
const DOMAIN = /(?<![\w@.-])(?:[\p{L}\p{N}-]+\.)+[a-z]{2,}(?![\p{L}\p{N}-])/giu;

/** "support@example.com" -> "support at example dot com". */
function expandEmailsAndDomains(text: string): string {
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
  ['Jan', 'January'], ['Feb', 'February'], ['Mar', 'March'], ['Apr', 'April'], ['Jun', 'June'],
  ['Jul', 'July'], ['Aug', 'August'], ['Sept|Sep', 'September'], ['Oct', 'October'],
  ['Nov', 'November'], ['Dec', 'December'],
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
    forms, spoken, canEndSentence: true, withoutDot: 'beforeNumber',
  })),
];

const ABBREVIATION_PATTERNS = ABBREVIATIONS.map((abbreviation) => {
  const dot = abbreviation.withoutDot ? `(?:(\\.)|${WITHOUT_DOT[abbreviation.withoutDot]})` : '(\\.)';
  const source = `(?<![\\p{L}\\p{N}.'])(?:${abbreviation.forms})${dot}${abbreviation.onlyBefore ?? ''}`;
  return { abbreviation, pattern: new RegExp(source, abbreviation.anyCase ? 'giu' : 'gu') };
});

function expandAbbreviations(text: string): string {
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
function expandSaintOrStreet(text: string): string {
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
function expandMeridiem(text: string): string {
  const pattern = /(?<=\d\s?)([AaPp])\.?\s?[Mm](\.)?(?![\p{L}\p{N}])/gu;
  return replaceInContext(text, pattern, (ctx) =>
    inPlace(`${ctx.groups[0]!.toLowerCase()} m${abbreviationDot(ctx.groups[1] !== undefined, ctx, true)}`, ctx),
  );
}

/** "U.S." -> "U S": dotted initialisms are spelled out letter by letter. */
function expandDottedAcronyms(text: string): string {
  const pattern = /(?<![\p{L}\p{N}.])((?:\p{L}\.)+\p{L})(\.)?(?![\p{L}\p{N}])/gu;
  return replaceInContext(text, pattern, (ctx) =>
    inPlace(ctx.groups[0]!.split('.').join(' ') + abbreviationDot(ctx.groups[1] !== undefined, ctx, true), ctx),
  );
}

// Exactly two numbers joined by a hyphen; longer chains (dates, phone numbers) are not ranges.
const NUMBER_RANGE = new RegExp(String.raw`(?<![\p{N}.,-])(${NUM})-(${NUM})(?![\p{N}-])`, 'gu');

/**
 * "5-10" -> "5 to 10" (the usual reading of a range), keeping the digits so
 * that the unit, money and percent rules still apply: "5-10 km", "5-10%".
 */
function expandRanges(text: string): string {
  return text.replace(NUMBER_RANGE, '$1 to $2');
}

interface Currency {
  readonly one: string;
  readonly many: string;
  /** Minor unit, read for up to two decimals ("$5.50" -> "... and fifty cents"). */
  readonly minor?: readonly [one: string, many: string];
}

const CURRENCIES: Readonly<Record<string, Currency>> = {
  $: { one: 'dollar', many: 'dollars', minor: ['cent', 'cents'] },
  '€': { one: 'euro', many: 'euros', minor: ['cent', 'cents'] },
  '£': { one: 'pound', many: 'pounds', minor: ['penny', 'pence'] },
  '¥': { one: 'yen', many: 'yen' },
  '¢': { one: 'cent', many: 'cents' },
};
const MONEY_SCALES: Readonly<Record<string, string>> = {
  thousand: 'thousand', million: 'million', billion: 'billion', trillion: 'trillion',
  k: 'thousand', K: 'thousand', m: 'million', M: 'million', mn: 'million',
  b: 'billion', B: 'billion', bn: 'billion', tn: 'trillion',
};
const MONEY_SCALE = String.raw`(?:\s?(thousand|million|billion|trillion)|(k|K|mn|m|M|bn|b|B|tn))?`;

function spokenMoney(minus: string | undefined, amount: string, currency: Currency, scale?: string): string {
  const sign = minus ? 'minus ' : '';
  const [whole, fraction] = amount.replace(/,/g, '').split('.');
  // "$1.5 million" and "¥2.5" are read as decimals; only "$5.50" has cents.
  if (scale) return `${sign}${numeralToWords(amount)} ${scale} ${currency.many}`;
  if (!currency.minor || (fraction !== undefined && fraction.length > 2)) {
    return `${sign}${numeralToWords(amount)} ${amount === '1' ? currency.one : currency.many}`;
  }
  const minorAmount = fraction === undefined ? 0 : Number(fraction.padEnd(2, '0'));
  const parts: string[] = [];
  if (Number(whole) !== 0 || minorAmount === 0) {
    parts.push(`${integerToWords(whole)} ${Number(whole) === 1 ? currency.one : currency.many}`);
  }
  if (minorAmount > 0) {
    parts.push(`${integerToWords(String(minorAmount))} ${minorAmount === 1 ? currency.minor[0] : currency.minor[1]}`);
  }
  return sign + parts.join(' and ');
}

const MONEY_PREFIX = new RegExp(
  String.raw`(?<![\p{L}\p{N}])${SIGN}([$€£¥])\s?(-)?(${NUM})${MONEY_SCALE}${NOT_BEFORE_WORD}`,
  'gu',
);
const MONEY_SUFFIX = new RegExp(String.raw`${NOT_AFTER_WORD}${SIGN}(${NUM})\s?([$€£¥¢])`, 'gu');

/** "$5.50" -> "five dollars and fifty cents", "-€3" -> "minus three euros", "$2bn", "50¢". */
function expandMoney(text: string): string {
  const prefixed = replaceInContext(text, MONEY_PREFIX, (ctx) => {
    const [minus, symbol, innerMinus, amount, word, abbr] = ctx.groups;
    const scale = word ?? (abbr !== undefined ? MONEY_SCALES[abbr] : undefined);
    return inPlace(spokenMoney(minus ?? innerMinus, amount!, CURRENCIES[symbol!], scale), ctx);
  });
  return replaceInContext(prefixed, MONEY_SUFFIX, (ctx) => {
    const [minus, amount, symbol] = ctx.groups;
    return inPlace(spokenMoney(minus, amount!, CURRENCIES[symbol!]), ctx);
  });
}

/** "50%" -> "fifty percent". */
function expandPercentages(text: string): string {
  const pattern = new RegExp(String.raw`${NOT_AFTER_WORD}${SIGN}(${NUM})\s?%`, 'gu');
  return replaceInContext(text, pattern, (ctx) =>
    inPlace(`${numeralToWords((ctx.groups[0] ?? '') + ctx.groups[1]!)} percent`, ctx),
  );
}

/** "10:30" -> "ten thirty", "9:05" -> "nine oh five", "10:00" -> "ten o'clock" (but "10:00 a m" -> "ten a m"). */
function expandTimes(text: string): string {
  const pattern = /(?<![\p{N}:.,])([01]?\d|2[0-3]):([0-5]\d)(?![\p{N}:])/gu;
  return replaceInContext(text, pattern, (ctx) => {
    const hour = integerToWords(String(Number(ctx.groups[0])));
    const minutes = ctx.groups[1]!;
    let words: string;
    if (minutes === '00') words = /^\s*[ap] m(?![\p{L}])/u.test(ctx.after) ? hour : `${hour} o'clock`;
    else if (minutes.startsWith('0')) words = `${hour} oh ${digitsToWords(minutes[1])}`;
    else words = `${hour} ${integerToWords(minutes)}`;
    return inPlace(words, ctx);
  });
}

/** "1st" -> "first", "21st" -> "twenty-first", "1,000th" -> "one thousandth". */
function expandOrdinals(text: string): string {
  const pattern = new RegExp(String.raw`${NOT_AFTER_WORD}(\d{1,3}(?:,\d{3})+|\d+)(?:st|nd|rd|th|ST|ND|RD|TH)${NOT_BEFORE_WORD}`, 'gu');
  return replaceInContext(text, pattern, (ctx) => inPlace(integerToOrdinalWords(ctx.groups[0]!.replace(/,/g, '')), ctx));
}

/**
 * "1990s" / "'90s" / "1990's" -> "... nineties". Only round decades: "5s" and
 * "15s" are left for the unit rule (seconds).
 */
function expandDecades(text: string): string {
  const pattern = new RegExp(String.raw`${NOT_AFTER_WORD}'?(\d0|\d{3}0)'?s${NOT_BEFORE_WORD}`, 'gu');
  return replaceInContext(text, pattern, (ctx) => inPlace(pluralizeNumberWords(integerToWords(ctx.groups[0]!)), ctx));
}

const UNITS: Readonly<Record<string, readonly [one: string, many: string]>> = {
  km: ['kilometer', 'kilometers'], m: ['meter', 'meters'], cm: ['centimeter', 'centimeters'],
  mm: ['millimeter', 'millimeters'], kg: ['kilogram', 'kilograms'], g: ['gram', 'grams'],
  mg: ['milligram', 'milligrams'], lb: ['pound', 'pounds'], lbs: ['pound', 'pounds'],
  oz: ['ounce', 'ounces'], mi: ['mile', 'miles'], ft: ['foot', 'feet'], in: ['inch', 'inches'],
  ml: ['milliliter', 'milliliters'], mL: ['milliliter', 'milliliters'],
  h: ['hour', 'hours'], hr: ['hour', 'hours'], hrs: ['hour', 'hours'],
  min: ['minute', 'minutes'], mins: ['minute', 'minutes'],
  s: ['second', 'seconds'], sec: ['second', 'seconds'], secs: ['second', 'seconds'],
  ms: ['millisecond', 'milliseconds'],
  '°C': ['degree Celsius', 'degrees Celsius'], '°F': ['degree Fahrenheit', 'degrees Fahrenheit'],
  '°': ['degree', 'degrees'],
  mph: ['mile per hour', 'miles per hour'], kph: ['kilometer per hour', 'kilometers per hour'],
  KB: ['kilobyte', 'kilobytes'], kB: ['kilobyte', 'kilobytes'], MB: ['megabyte', 'megabytes'],
  GB: ['gigabyte', 'gigabytes'], TB: ['terabyte', 'terabytes'],
};
// Longest first, so "mph" wins over "m" and "°C" over "°".
const UNIT = Object.keys(UNITS).sort((a, b) => b.length - a.length).map(escapeRegExp).join('|');
const MEASUREMENT = new RegExp(
  String.raw`${NOT_AFTER_WORD}${SIGN}(${NUM})(\s?)(${UNIT})(?:\/(${UNIT}))?${NOT_BEFORE_WORD}`,
  'gu',
);

/** "3 km" -> "three kilometers", "1 ft" -> "one foot", "60 km/h" -> "sixty kilometers per hour". */
function expandUnits(text: string): string {
  const s = text.replace(/°\s+([CF])(?![\p{L}\p{N}])/gu, '°$1');
  return replaceInContext(s, MEASUREMENT, (ctx) => {
    const [minus, amount, space, unit, perUnit] = ctx.groups;
    // "at 5 in the morning", "won 3 in 2020": a spaced "in" followed by a word is the preposition.
    if (unit === 'in' && space && /^\s+[\p{L}\p{N}]/u.test(ctx.after)) return ctx.match;
    const [one, many] = UNITS[unit!];
    const per = perUnit !== undefined ? ` per ${UNITS[perUnit][0]}` : '';
    return inPlace(`${numeralToWords((minus ?? '') + amount!)} ${amount === '1' ? one : many}${per}`, ctx);
  });
}

/** "#1" -> "number 1", "&" -> "and", "@" -> "at", "+" -> "plus", "=" -> "equals", "%" -> "percent". */
function expandSymbols(text: string): string {
  return text
    .replace(/#(?=\d)/g, ' number ')
    .replace(/&/g, ' and ')
    .replace(/@/g, ' at ')
    .replace(/\+/g, ' plus ')
    .replace(/=/g, ' equals ')
    .replace(/%/g, ' percent ');
}

const DOTTED_NUMBER = /(?<![\p{N}.])\d+(?:\.\d+){2,}(?!\.?\d)/gu;
const PLAIN_NUMBER = new RegExp(String.raw`(?<!\d)${SIGN}(${NUM})|(?<![\p{L}\p{N}.])\.(\d+)`, 'gu');

/** Everything still numeric: versions and IPs ("1.2.3"), then plain numbers. */
function expandNumbers(text: string): string {
  const s = replaceInContext(text, DOTTED_NUMBER, (ctx) =>
    inPlace(ctx.match.split('.').map(integerToWords).join(' dot '), ctx),
  );
  return replaceInContext(s, PLAIN_NUMBER, (ctx) => {
    const [minus, numeral, bareFraction] = ctx.groups;
    const words = numeral !== undefined ? numeralToWords((minus ?? '') + numeral) : `point ${digitsToWords(bareFraction!)}`;
    return inPlace(words, ctx);
  });
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
