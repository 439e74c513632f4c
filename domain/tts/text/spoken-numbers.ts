/** English spoken-form rules for numbers: ranges, money, percentages, times, ordinals, decades, units, symbols, plain numerals. */
import { NUM, SIGN, NOT_AFTER_WORD, NOT_BEFORE_WORD, replaceInContext, inPlace, escapeRegExp } from './spoken-context';
import { integerToOrdinalWords, integerToWords, numeralToWords, pluralizeNumberWords, digitsToWords } from './numbers';

// Exactly two numbers joined by a hyphen; longer chains (dates, phone numbers) are not ranges.
const NUMBER_RANGE = new RegExp(String.raw`(?<![\p{N}.,-])(${NUM})-(${NUM})(?![\p{N}-])`, 'gu');

/**
 * "5-10" -> "5 to 10" (the usual reading of a range), keeping the digits so
 * that the unit, money and percent rules still apply: "5-10 km", "5-10%".
 */
export function expandRanges(text: string): string {
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
  thousand: 'thousand',
  million: 'million',
  billion: 'billion',
  trillion: 'trillion',
  k: 'thousand',
  K: 'thousand',
  m: 'million',
  M: 'million',
  mn: 'million',
  b: 'billion',
  B: 'billion',
  bn: 'billion',
  tn: 'trillion',
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

const MONEY_PREFIX = new RegExp(String.raw`(?<![\p{L}\p{N}])${SIGN}([$€£¥])\s?(-)?(${NUM})${MONEY_SCALE}${NOT_BEFORE_WORD}`, 'gu');
const MONEY_SUFFIX = new RegExp(String.raw`${NOT_AFTER_WORD}${SIGN}(${NUM})\s?([$€£¥¢])`, 'gu');

/** "$5.50" -> "five dollars and fifty cents", "-€3" -> "minus three euros", "$2bn", "50¢". */
export function expandMoney(text: string): string {
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
export function expandPercentages(text: string): string {
  const pattern = new RegExp(String.raw`${NOT_AFTER_WORD}${SIGN}(${NUM})\s?%`, 'gu');
  return replaceInContext(text, pattern, (ctx) => inPlace(`${numeralToWords((ctx.groups[0] ?? '') + ctx.groups[1]!)} percent`, ctx));
}

/** "10:30" -> "ten thirty", "9:05" -> "nine oh five", "10:00" -> "ten o'clock" (but "10:00 a m" -> "ten a m"). */
export function expandTimes(text: string): string {
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
export function expandOrdinals(text: string): string {
  const pattern = new RegExp(String.raw`${NOT_AFTER_WORD}(\d{1,3}(?:,\d{3})+|\d+)(?:st|nd|rd|th|ST|ND|RD|TH)${NOT_BEFORE_WORD}`, 'gu');
  return replaceInContext(text, pattern, (ctx) => inPlace(integerToOrdinalWords(ctx.groups[0]!.replace(/,/g, '')), ctx));
}

/**
 * "1990s" / "'90s" / "1990's" -> "... nineties". Only round decades: "5s" and
 * "15s" are left for the unit rule (seconds).
 */
export function expandDecades(text: string): string {
  const pattern = new RegExp(String.raw`${NOT_AFTER_WORD}'?(\d0|\d{3}0)'?s${NOT_BEFORE_WORD}`, 'gu');
  return replaceInContext(text, pattern, (ctx) => inPlace(pluralizeNumberWords(integerToWords(ctx.groups[0]!)), ctx));
}

const UNITS: Readonly<Record<string, readonly [one: string, many: string]>> = {
  km: ['kilometer', 'kilometers'],
  m: ['meter', 'meters'],
  cm: ['centimeter', 'centimeters'],
  mm: ['millimeter', 'millimeters'],
  kg: ['kilogram', 'kilograms'],
  g: ['gram', 'grams'],
  mg: ['milligram', 'milligrams'],
  lb: ['pound', 'pounds'],
  lbs: ['pound', 'pounds'],
  oz: ['ounce', 'ounces'],
  mi: ['mile', 'miles'],
  ft: ['foot', 'feet'],
  in: ['inch', 'inches'],
  ml: ['milliliter', 'milliliters'],
  mL: ['milliliter', 'milliliters'],
  h: ['hour', 'hours'],
  hr: ['hour', 'hours'],
  hrs: ['hour', 'hours'],
  min: ['minute', 'minutes'],
  mins: ['minute', 'minutes'],
  s: ['second', 'seconds'],
  sec: ['second', 'seconds'],
  secs: ['second', 'seconds'],
  ms: ['millisecond', 'milliseconds'],
  '°C': ['degree Celsius', 'degrees Celsius'],
  '°F': ['degree Fahrenheit', 'degrees Fahrenheit'],
  '°': ['degree', 'degrees'],
  mph: ['mile per hour', 'miles per hour'],
  kph: ['kilometer per hour', 'kilometers per hour'],
  KB: ['kilobyte', 'kilobytes'],
  kB: ['kilobyte', 'kilobytes'],
  MB: ['megabyte', 'megabytes'],
  GB: ['gigabyte', 'gigabytes'],
  TB: ['terabyte', 'terabytes'],
};
// Longest first, so "mph" wins over "m" and "°C" over "°".
const UNIT = Object.keys(UNITS)
  .sort((a, b) => b.length - a.length)
  .map(escapeRegExp)
  .join('|');
const MEASUREMENT = new RegExp(String.raw`${NOT_AFTER_WORD}${SIGN}(${NUM})(\s?)(${UNIT})(?:\/(${UNIT}))?${NOT_BEFORE_WORD}`, 'gu');

/** "3 km" -> "three kilometers", "1 ft" -> "one foot", "60 km/h" -> "sixty kilometers per hour". */
export function expandUnits(text: string): string {
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
export function expandSymbols(text: string): string {
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
export function expandNumbers(text: string): string {
  const s = replaceInContext(text, DOTTED_NUMBER, (ctx) => inPlace(ctx.match.split('.').map(integerToWords).join(' dot '), ctx));
  return replaceInContext(s, PLAIN_NUMBER, (ctx) => {
    const [minus, numeral, bareFraction] = ctx.groups;
    const words = numeral !== undefined ? numeralToWords((minus ?? '') + numeral) : `point ${digitsToWords(bareFraction!)}`;
    return inPlace(words, ctx);
  });
}
