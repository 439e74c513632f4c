/**
 * Content normalisation: two texts that differ only in presentation (markup,
 * typography, case, spacing) normalise to the same string, so they can share
 * one cached audio clip.
 *
 * Sentence-final punctuation is deliberately kept: "Hello." / "Hello!" /
 * "Hello" are spoken with different intonation.
 *
 * The pipeline is split into stages so that the spoken form (spoken.ts) can
 * expand abbreviations between markup stripping and case folding, where the
 * original capitalisation ("Dr. Smith", "St. Louis") is still available.
 */

// ---------------------------------------------------------------------------
// Markup
// ---------------------------------------------------------------------------

/**
 * Tags rendered inside a word or phrase: removed without leaving a gap, so
 * "<b>Hel</b>lo" stays one word. Every other tag (p, div, br, li, SSML
 * break/s/p/speak, ...) separates words and becomes a space.
 */
const INLINE_TAGS = new Set([
  // HTML phrasing content
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'cite',
  'code',
  'data',
  'del',
  'dfn',
  'em',
  'font',
  'i',
  'ins',
  'kbd',
  'mark',
  'q',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'time',
  'u',
  'var',
  'wbr',
  // SSML elements that wrap or annotate words without separating them
  'emphasis',
  'prosody',
  'say-as',
  'phoneme',
  'lang',
  'w',
  'token',
  'amazon:effect',
  'amazon:domain',
  'mstts:express-as',
]);

// A tag name followed by attributes; quoted attribute values may contain ">".
// (A single \s before the attributes: "\s+" there would backtrack quadratically on "<a    ...".)
const TAG = /<\/?([A-Za-z][\w:.-]*)(?:\s(?:[^<>"']|"[^"]*"|'[^']*')*)?\/?>/g;
// Unterminated comments and CDATA run to the end instead of being rescanned from every opener.
const COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
const CDATA = /<!\[CDATA\[([\s\S]*?)(?:\]\]>|$)/g;
const DECLARATION = /<[!?][A-Za-z][^<>]*>/g; // <!DOCTYPE ...>, <?xml ...?>

// A Map, not an object literal: "&constructor;" must not find Object.prototype members.
const NAMED_ENTITIES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    amp: '&',
    lt: '<',
    gt: '>',
    quot: '"',
    apos: "'",
    nbsp: '\u00A0',
    ensp: '\u2002',
    emsp: '\u2003',
    thinsp: '\u2009',
    shy: '\u00AD',
    zwj: '\u200D',
    zwnj: '\u200C',
    ndash: '\u2013',
    mdash: '\u2014',
    minus: '\u2212',
    hellip: '\u2026',
    lsquo: '\u2018',
    rsquo: '\u2019',
    sbquo: '\u201A',
    ldquo: '\u201C',
    rdquo: '\u201D',
    bdquo: '\u201E',
    laquo: '\u00AB',
    raquo: '\u00BB',
    lsaquo: '\u2039',
    rsaquo: '\u203A',
    prime: '\u2032',
    Prime: '\u2033',
    copy: '\u00A9',
    reg: '\u00AE',
    trade: '\u2122',
    deg: '\u00B0',
    times: '\u00D7',
    divide: '\u00F7',
    euro: '\u20AC',
    pound: '\u00A3',
    yen: '\u00A5',
    cent: '\u00A2',
    middot: '\u00B7',
    bull: '\u2022',
  }),
);
const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));/g;

function decodeEntities(text: string): string {
  // One pass, so "&amp;lt;" decodes to the literal text "&lt;" and no further.
  return text.replace(ENTITY, (entity, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name !== undefined) return NAMED_ENTITIES.get(name) ?? entity;
    const codePoint = dec !== undefined ? Number(dec) : parseInt(hex as string, 16);
    const valid = codePoint > 0 && codePoint <= 0x10ffff && !(codePoint >= 0xd800 && codePoint <= 0xdfff);
    return valid ? String.fromCodePoint(codePoint) : '\uFFFD';
  });
}

function stripMarkdownLines(text: string): string {
  return text
    .replace(/^[ \t]*`{3,}[^\n]*$/gm, '') // code fences, including the language tag
    .replace(/^[ \t]{0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/gm, '$1') // ATX headings
    .replace(/^[ \t]*(?:[-=*_][ \t]*){3,}$/gm, '') // horizontal rules, setext underlines
    .replace(/^[ \t]*(?:>[ \t]?)+/gm, '') // blockquotes
    .replace(/^[ \t]*[-*+][ \t]+/gm, ''); // bullet list markers
}

// Emphasis needs a matching closer, so a lone "*" or "2 * 3" survives.
// "_" is not treated as emphasis inside words (snake_case); "*" is not
// treated as emphasis between digits (2*3*4).
const STAR_EMPHASIS = /(?<!\d)(\*{1,3})(?=[^*\s])([^*]*?[^*\s])\1(?!\d)/g;
const UNDERSCORE_EMPHASIS = /(?<![\p{L}\p{N}_])(_{1,3})(?=[^_\s])([^_]*?[^_\s])\1(?![\p{L}\p{N}_])/gu;
const STRIKETHROUGH = /~~(?=[^~\s])([^~]*?[^~\s])~~/g;

function stripMarkdownInline(text: string): string {
  let s = text
    // Bounded lengths keep unclosed "[[[[..." linear.
    .replace(/!\[([^\]\n]{0,500})\]\([^)\s]{0,2000}(?: "[^"\n]{0,500}")?\)/g, '$1') // images -> alt text
    .replace(/\[([^\]\n]{1,500})\]\([^)\s]{0,2000}(?: "[^"\n]{0,500}")?\)/g, '$1') // links -> link text
    .replace(/`+/g, ''); // code spans
  // Nested emphasis ("**bold _and italic_**") needs more than one pass.
  for (let pass = 0; pass < 3; pass++) {
    const next = s.replace(STAR_EMPHASIS, '$2').replace(UNDERSCORE_EMPHASIS, '$2').replace(STRIKETHROUGH, '$1');
    if (next === s) break;
    s = next;
  }
  return s;
}

/** Removes markdown syntax (headings, bullets, quotes, rules, fences, emphasis, code, links). */
export function stripMarkdown(text: string): string {
  return stripMarkdownInline(stripMarkdownLines(text));
}

/**
 * Removes HTML/XML/SSML tags, comments and declarations. Repeated until
 * stable, because removing one tag can complete another ("<<b>a>").
 */
export function stripTags(text: string): string {
  return untilStable(text, (s) =>
    s
      .replace(COMMENT, ' ')
      .replace(CDATA, '$1')
      .replace(TAG, (_tag, name: string) => (INLINE_TAGS.has(name.toLowerCase()) ? '' : ' '))
      .replace(DECLARATION, ' '),
  );
}

/**
 * Removes markdown and HTML/XML/SSML markup and decodes HTML entities,
 * keeping the text that would be read. Entities are decoded last, so an
 * escaped "&lt;b&gt;" stays literal text instead of becoming a tag.
 */
export function stripMarkup(text: string): string {
  // Horizontal whitespace runs carry no meaning here and would slow the line patterns down.
  const s = text.replace(/[ \t]+/g, ' ');
  return decodeEntities(stripTags(stripMarkdown(s)));
}

// ---------------------------------------------------------------------------
// Typography
// ---------------------------------------------------------------------------

// Invisible characters that only affect rendering or line breaking.
const INVISIBLE = /[\u00AD\u180E\u200B-\u200D\u2060-\u2064\uFEFF]/g;
// Two apostrophes (also "″", which NFKC turns into two primes) are a double quote.
const TWO_APOSTROPHES = /''/g;
const SINGLE_QUOTES = /[\u2018\u2019\u201A\u201B\u2032\u2035\u2039\u203A\u02BC]/g;
const DOUBLE_QUOTES = /[\u201C\u201D\u201E\u201F\u2033\u2036\u00AB\u00BB\u301D\u301E\u301F]/g;
const HYPHENS = /[\u2010\u2011\u2012\u2013\u2212\uFE63\uFF0D]/g;
// Em dashes and runs of hyphens are parenthetical dashes whether or not the
// author spaced them; a single hyphen is only a dash when spaced ("a - b").
const EM_DASH = / ?[\u2014\u2015\u2E3A\u2E3B] ?/g;
const DOUBLE_HYPHEN = / ?-{2,} ?/g;

/**
 * Character-level canonicalisation that keeps line structure, so it can run
 * before markdown and tag stripping: NFKC (fullwidth forms, ligatures, "…" ->
 * "...", NBSP -> space), invisible characters removed, one kind of quote,
 * one kind of hyphen, em dashes spaced.
 */
function mapCharacters(text: string): string {
  return (
    text
      .normalize('NFKC')
      .replace(INVISIBLE, '')
      // Runs of horizontal whitespace carry no meaning; collapsing them early also keeps
      // the patterns below (and the markdown line patterns) linear.
      .replace(/[^\S\r\n\u2028\u2029]+/g, ' ')
      // French spacing inside guillemets is typographic, not content.
      .replace(/« /g, '«')
      .replace(/ »/g, '»')
      .replace(SINGLE_QUOTES, "'")
      .replace(DOUBLE_QUOTES, '"')
      .replace(HYPHENS, '-')
      .replace(EM_DASH, ' - ')
  );
}

/**
 * Canonical typography without changing case: the character mapping above,
 * then single spaces, "--" as a spaced dash, no space before punctuation,
 * "..." for dot runs, repeated "!"/"?" collapsed. Idempotent.
 */
export function canonicalizeTypography(text: string): string {
  return (
    mapCharacters(text)
      // Collapse first: every later pattern then sees single spaces (and stays linear).
      .replace(/\s+/g, ' ')
      // Not in mapCharacters: markup uses '' (empty attribute values).
      .replace(TWO_APOSTROPHES, '"')
      .replace(DOUBLE_HYPHEN, ' - ')
      .replace(/ {2,}/g, ' ')
      .trim()
      // A leading spaced dash reads like a list bullet (which markup stripping removes anyway).
      .replace(/^(?:- )+/, '')
      // "hello , world" -> "hello, world". Kept: a space before ".5" (it starts a number), and
      // spaces whose removal would create markup ("< ?xml", "&amp ;").
      .replace(/(?<!<|&#?[A-Za-z0-9]+) +(?=[,;:!?)\]}%]|\.(?!\d))/g, '')
      .replace(/([(\[{]) +/g, '$1')
      .replace(/\.{2,}/g, '...')
      .replace(/,{2,}/g, ',')
      // "!!!" -> "!", "???" -> "?", any mix of the two -> "?!".
      .replace(/[!?]{2,}/g, (run) => (run.includes('!') && run.includes('?') ? '?!' : run[0]))
  );
}

// ---------------------------------------------------------------------------
// Content form
// ---------------------------------------------------------------------------

/**
 * Applies `pass` until the text stops changing (bounded; in practice one or
 * two rounds, since each change only removes markup).
 */
export function untilStable(text: string, pass: (s: string) => string): string {
  let current = text;
  for (let round = 0; round < 5; round++) {
    const next = pass(current);
    if (next === current) break;
    current = next;
  }
  return current;
}

/**
 * The "content" form of a text: markup stripped, typography canonicalised,
 * case folded (locale-independent), whitespace collapsed. Sentence-final
 * punctuation is kept because it changes intonation.
 */
export function normalizeContent(text: string): string {
  // Case folding goes last: markup and entity names are case-sensitive.
  return cleanPresentation(text).toLowerCase();
}

/**
 * normalizeContent without case folding; the spoken form needs the capitals
 * ("Dr. Smith", "St. Louis").
 *
 * Order matters: characters are mapped first so that "<a–>" is already the tag
 * "<a->" when tags are stripped; entities are decoded after tag stripping so
 * escaped markup stays literal. Collapsing lines can expose markdown ("#\na"
 * becomes "# a", "*—a" becomes "* - a"), so markdown is stripped again until
 * stable; that makes the form idempotent (for text without HTML entities,
 * which are decoded exactly once by design).
 */
export function cleanPresentation(text: string): string {
  const stripped = stripMarkup(mapCharacters(text));
  return untilStable(canonicalizeTypography(stripped), (s) => canonicalizeTypography(stripMarkdown(s)));
}
