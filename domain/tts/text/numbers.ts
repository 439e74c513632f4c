/**
 * English number words, used by the spoken form (see spoken.ts).
 *
 * Everything works on digit strings rather than JS numbers so that long
 * integers ("12345678901234567890") are read exactly instead of being rounded
 * through a double.
 */

const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

// Short scale, as used in American and modern British English.
const SCALES = [
  '',
  'thousand',
  'million',
  'billion',
  'trillion',
  'quadrillion',
  'quintillion',
  'sextillion',
  'septillion',
  'octillion',
  'nonillion',
  'decillion',
];

const IRREGULAR_ORDINALS: Record<string, string> = {
  one: 'first',
  two: 'second',
  three: 'third',
  five: 'fifth',
  eight: 'eighth',
  nine: 'ninth',
  twelve: 'twelfth',
};

/** Reads digits one by one: "007" -> "zero zero seven". */
export function digitsToWords(digits: string): string {
  return Array.from(digits, (d) => ONES[Number(d)]).join(' ');
}

function belowThousand(n: number): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  const parts: string[] = [];
  if (hundreds > 0) parts.push(`${ONES[hundreds]} hundred`);
  if (rest > 0 && rest < 20) parts.push(ONES[rest]);
  else if (rest >= 20) parts.push(TENS[Math.floor(rest / 10)] + (rest % 10 ? `-${ONES[rest % 10]}` : ''));
  return parts.join(' ');
}

/**
 * Cardinal words for a string of ASCII digits: "1234" -> "one thousand two
 * hundred thirty-four". A leading zero ("007") is read digit by digit because
 * that is how such strings are spoken (codes, ids); so is anything longer
 * than the scale table.
 */
export function integerToWords(digits: string): string {
  if (!/^\d+$/.test(digits)) throw new RangeError(`not a digit string: ${JSON.stringify(digits)}`);
  if (digits.length > 1 && digits.startsWith('0')) return digitsToWords(digits);
  if (digits.length > SCALES.length * 3) return digitsToWords(digits);
  if (/^0+$/.test(digits)) return 'zero';

  const groups: number[] = [];
  for (let end = digits.length; end > 0; end -= 3) {
    groups.unshift(Number(digits.slice(Math.max(0, end - 3), end)));
  }
  const words: string[] = [];
  groups.forEach((group, i) => {
    if (group === 0) return;
    const scale = SCALES[groups.length - 1 - i];
    words.push(scale ? `${belowThousand(group)} ${scale}` : belowThousand(group));
  });
  return words.join(' ');
}

/**
 * Words for a plain numeral: optional leading "-", optional thousands commas,
 * optional decimals. "-1,234.05" -> "minus one thousand two hundred
 * thirty-four point zero five". Decimals are read digit by digit.
 */
export function numeralToWords(numeral: string): string {
  const match = /^(-)?(\d[\d,]*)?(?:\.(\d+))?$/.exec(numeral);
  if (!match || (match[2] === undefined && match[3] === undefined)) {
    throw new RangeError(`not a numeral: ${JSON.stringify(numeral)}`);
  }
  const [, minus, intPart, fraction] = match;
  const parts: string[] = [];
  if (minus) parts.push('minus');
  if (intPart !== undefined) parts.push(integerToWords(intPart.replace(/,/g, '')));
  if (fraction !== undefined) parts.push('point', digitsToWords(fraction));
  return parts.join(' ');
}

/** Applies `transform` to the last word (or last hyphenated part) of `words`. */
function mapLastWord(words: string, transform: (word: string) => string): string {
  const match = /^(.*?)([a-z]+)$/.exec(words);
  return match ? match[1] + transform(match[2]) : words;
}

/** Ordinal words for a digit string: "21" -> "twenty-first". */
export function integerToOrdinalWords(digits: string): string {
  return mapLastWord(integerToWords(digits), (word) => {
    if (IRREGULAR_ORDINALS[word]) return IRREGULAR_ORDINALS[word];
    if (word.endsWith('y')) return `${word.slice(0, -1)}ieth`;
    return `${word}th`;
  });
}

/** Plural of cardinal words, as in decades: "1990" -> "... ninety" -> "... nineties". */
export function pluralizeNumberWords(words: string): string {
  return mapLastWord(words, (word) => {
    if (word.endsWith('y')) return `${word.slice(0, -1)}ies`;
    if (word.endsWith('x')) return `${word}es`;
    return `${word}s`;
  });
}
