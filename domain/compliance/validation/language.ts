import { countWords, normaliseText, termPattern } from './text';

/**
 * Words that cannot be verified objectively. Listed in the order they are
 * reported; the canonical spelling here is what appears in messages.
 */
export const AMBIGUOUS_TERMS: readonly string[] = Object.freeze([
  'appropriate',
  'adequate',
  'user-friendly',
  'fast',
  'quickly',
  'as needed',
  'as soon as possible',
  'if possible',
  'etc',
  'and/or',
  'robust',
  'sufficient',
  'reasonable',
  'easy',
  'easily',
  'flexible',
  'intuitive',
  'TBD',
  'TBC',
]);

const AMBIGUOUS_MATCHERS = AMBIGUOUS_TERMS.map((term) => ({ term, pattern: termPattern(term) }));
const SHOULD_PATTERN = termPattern('should');

/** Ambiguous terms present in the text, in `AMBIGUOUS_TERMS` order, each once. */
export function findAmbiguousTerms(text: string | null | undefined): string[] {
  if (!text) return [];
  return AMBIGUOUS_MATCHERS.filter(({ pattern }) => pattern.test(text)).map(({ term }) => term);
}

export function usesShould(text: string | null | undefined): boolean {
  return !!text && SHOULD_PATTERN.test(text);
}

/*
 * Verbs that describe something a tester can observe. Inflections are
 * generated so the list stays readable; irregular forms are added explicitly.
 */
const OBSERVABLE_VERB_STEMS = [
  'accept',
  'alert',
  'allow',
  'appear',
  'archive',
  'block',
  'calculate',
  'capture',
  'complete',
  'contain',
  'create',
  'delete',
  'deny',
  'disable',
  'display',
  'emit',
  'enable',
  'encrypt',
  'enforce',
  'equal',
  'expire',
  'export',
  'fail',
  'flag',
  'generate',
  'hash',
  'import',
  'include',
  'lock',
  'log',
  'mask',
  'match',
  'notify',
  'persist',
  'prevent',
  'print',
  'prompt',
  'raise',
  'receive',
  'record',
  'redirect',
  'reject',
  'remove',
  'render',
  'report',
  'require',
  'respond',
  'restore',
  'retain',
  'return',
  'revoke',
  'save',
  'send',
  'show',
  'sign',
  'store',
  'timeout',
  'trigger',
  'update',
  'validate',
  'verify',
];
const IRREGULAR_FORMS = ['sent', 'emitted', 'shown', 'written', 'writes', 'write', 'kept', 'keeps', 'stamped', 'purged', 'purges'];

function inflect(stem: string): string[] {
  if (stem.endsWith('y') && !/[aeiou]y$/.test(stem)) {
    const root = stem.slice(0, -1);
    return [stem, `${root}ies`, `${root}ied`];
  }
  const thirdPerson = /(s|sh|ch|x|z)$/.test(stem) ? `${stem}es` : `${stem}s`;
  const past = stem.endsWith('e') ? `${stem}d` : /[^aeiou][aeiou]g$/.test(stem) ? `${stem}${stem.slice(-1)}ed` : `${stem}ed`;
  return [stem, thirdPerson, past];
}

const OBSERVABLE_VERBS: ReadonlySet<string> = new Set([...OBSERVABLE_VERB_STEMS.flatMap(inflect), ...IRREGULAR_FORMS]);

const SCENARIO_PATTERN = /\b(given|when|if)\b[\s\S]*\bthen\b/i;
const QUANTITY_PATTERN = /\d/;
const MIN_WORDS = 3;

/**
 * Heuristic for "can a tester decide pass/fail?": a Given/When/Then (or
 * When/If...then) scenario, a number or threshold, or an observable action verb,
 * in a criterion of at least three words. Deliberately simple so the outcome is
 * easy to explain to an auditor.
 */
export function isTestableCriterion(text: string | null | undefined): boolean {
  if (!text || countWords(text) < MIN_WORDS) return false;
  if (SCENARIO_PATTERN.test(text) || QUANTITY_PATTERN.test(text)) return true;
  return normaliseText(text)
    .trim()
    .split(' ')
    .some((word) => OBSERVABLE_VERBS.has(word));
}
