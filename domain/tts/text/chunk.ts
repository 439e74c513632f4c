/**
 * Sentence splitting and chunking for progressive generation: long texts are
 * synthesised chunk by chunk so the first audio arrives early.
 *
 * Contract: sentences and chunks are whitespace-collapsed slices of the input,
 * cut only at whitespace, so `chunks.join(' ') === collapseWhitespace(text)`.
 * The one exception is a run of more than `maxChars` characters with no
 * whitespace (a URL, or CJK text), which has to be cut inside the run.
 * Lengths are UTF-16 code units (String#length); a surrogate pair is never cut.
 */

/** Collapses every whitespace run to one space and trims. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Abbreviations that are followed by a name, so "Dr. Smith" is not a sentence end. */
const TITLE_ABBREVIATIONS = new Set([
  'dr',
  'mr',
  'mrs',
  'ms',
  'mx',
  'prof',
  'st',
  'mt',
  'rev',
  'fr',
  'sr',
  'jr',
  'gen',
  'col',
  'capt',
  'lt',
  'sgt',
  'hon',
  'vs',
  'cf',
  'viz',
  'approx',
  'e.g',
  'i.e',
]);
/** Abbreviations followed by a number: "No. 5", "Jan. 12", "p. 4". */
const NUMBER_ABBREVIATIONS = new Set([
  'no',
  'nos',
  'vol',
  'p',
  'pp',
  'ch',
  'fig',
  'art',
  'sec',
  'ca',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
]);

/**
 * A candidate boundary: terminal punctuation, optional closing quotes or
 * brackets, whitespace, then something that can start a sentence (an
 * uppercase letter, a digit, an opening quote/bracket, or a letter of a
 * script without case). Lowercase continuations are never boundaries, which
 * covers "etc. and", "e.g. apples" and "wait... then".
 */
// The lookbehind makes a run of dots be tried once, from its start, not from every dot.
const BOUNDARY = /(?<![.!?…؟।])([.!?…؟।]+)["'”’»)\]]*(\s+)(?=["'“‘«(\[]*[\p{Lu}\p{Lt}\p{Lo}\p{N}])/gu;

/** Whether the word ending in the "." at `dotIndex` is an abbreviation, not a sentence end. */
function isAbbreviationDot(sentence: string, dotIndex: number, nextChar: string): boolean {
  const wordStart = sentence.lastIndexOf(' ', dotIndex) + 1;
  const word = sentence.slice(wordStart, dotIndex).replace(/^["'“‘«(\[]+/u, '');
  const key = word.toLowerCase();
  if (TITLE_ABBREVIATIONS.has(key)) return true;
  if (NUMBER_ABBREVIATIONS.has(key) && /\d/.test(nextChar)) return true;
  if (/^\p{Lu}$/u.test(word)) return true; // an initial: "J. R. R. Tolkien"
  if (/^(?:\p{Lu}\.)+\p{Lu}$/u.test(word)) return true; // "U.S.", "U.K."
  return false;
}

function splitParagraph(paragraph: string): string[] {
  const sentences: string[] = [];
  let start = 0;
  for (const match of paragraph.matchAll(BOUNDARY)) {
    const punctuation = match[1];
    const whitespaceIndex = match.index! + match[0].length - match[2].length;
    const nextChar = paragraph[match.index! + match[0].length];
    if (punctuation === '.' && isAbbreviationDot(paragraph, match.index!, nextChar)) continue;
    sentences.push(paragraph.slice(start, whitespaceIndex));
    start = whitespaceIndex + match[2].length;
  }
  sentences.push(paragraph.slice(start));
  return sentences;
}

/**
 * Splits text into sentences, keeping each sentence's punctuation (and any
 * closing quote) with it. Blank lines always separate sentences; single line
 * breaks do not. Sentences are trimmed and whitespace-collapsed.
 */
export function splitSentences(text: string): string[] {
  return text
    .split(/\n\s*\n|\u2029/)
    .map(collapseWhitespace)
    .filter((paragraph) => paragraph.length > 0)
    .flatMap(splitParagraph);
}

// Break after these when a sentence must be split, best first.
const CLAUSE_BREAK = /(?:[;:,]| -)(?= )/g;
const CJK_BREAK = /[。！？；：，、]/g;

/** Last index `i <= limit` found by `pattern`, as the end of the piece before the break. */
function lastBreak(text: string, limit: number, pattern: RegExp): number {
  let best = -1;
  for (const match of text.slice(0, limit + 1).matchAll(pattern)) {
    const end = match.index! + match[0].length;
    if (end > 0 && end <= limit) best = end;
  }
  return best;
}

/** Index to hard-cut at: `limit`, moved back so a surrogate pair stays whole. */
function hardCut(text: string, limit: number): number {
  const code = text.charCodeAt(limit - 1);
  const splitsPair = code >= 0xd800 && code <= 0xdbff;
  if (!splitsPair) return limit;
  // With limit 1 there is no room for a pair at all: emit it whole rather than loop forever.
  return limit > 1 ? limit - 1 : 2;
}

/** Splits one collapsed sentence longer than `maxChars` into pieces of at most `maxChars`. */
function splitLongSentence(sentence: string, maxChars: number): string[] {
  const pieces: string[] = [];
  let rest = sentence;
  while (rest.length > maxChars) {
    // Clause and word breaks end right before a space, which is consumed.
    let end = lastBreak(rest, maxChars, CLAUSE_BREAK);
    if (end < 0) end = rest.lastIndexOf(' ', maxChars);
    if (end > 0) {
      pieces.push(rest.slice(0, end));
      rest = rest.slice(end + 1);
      continue;
    }
    // No whitespace within reach: cut inside the run, preferably after CJK punctuation.
    end = lastBreak(rest, maxChars, CJK_BREAK);
    if (end <= 0) end = hardCut(rest, maxChars);
    pieces.push(rest.slice(0, end));
    rest = rest.slice(end).replace(/^ /, ''); // only after a whole pair emitted with maxChars 1
  }
  if (rest.length > 0) pieces.push(rest);
  return pieces;
}

export interface ChunkOptions {
  /** Hard upper bound on a chunk's length. */
  maxChars: number;
  /**
   * A chunk is closed at the first sentence boundary once it has at least
   * this many characters; a small value gives short, fast first chunks.
   * Defaults to `maxChars`, i.e. chunks are packed as full as possible.
   */
  minChars?: number;
}

/**
 * Groups whole sentences into chunks of at most `maxChars`. A sentence longer
 * than `maxChars` is split at the last clause boundary (";", ":", ",", " - ")
 * within the limit, else at the last space, else hard-cut. Never returns
 * empty chunks. A trailing chunk shorter than `minChars` is merged into the
 * previous one when it fits.
 */
export function chunkText(text: string, opts: ChunkOptions): string[] {
  const { maxChars } = opts;
  const minChars = opts.minChars ?? maxChars;
  if (!Number.isInteger(maxChars) || maxChars < 1) {
    throw new RangeError(`maxChars must be a positive integer, got ${maxChars}`);
  }
  if (!Number.isInteger(minChars) || minChars < 0 || minChars > maxChars) {
    throw new RangeError(`minChars must be an integer between 0 and maxChars, got ${minChars}`);
  }

  const pieces = splitSentences(text).flatMap((sentence) => (sentence.length > maxChars ? splitLongSentence(sentence, maxChars) : [sentence]));

  const chunks: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if (current === '') {
      current = piece;
    } else if (current.length < minChars && current.length + 1 + piece.length <= maxChars) {
      current += ` ${piece}`;
    } else {
      chunks.push(current);
      current = piece;
    }
  }
  if (current !== '') chunks.push(current);

  // Avoid a tiny last chunk (a separate, oddly intoned request) when it fits.
  const last = chunks.length - 1;
  if (last > 0 && chunks[last].length < minChars && chunks[last - 1].length + 1 + chunks[last].length <= maxChars) {
    chunks[last - 1] += ` ${chunks.pop()}`;
  }
  return chunks;
}
