import { getFramework } from '../catalogue/frameworks';
import { containsKeyword, leadWordsOf, normaliseText, wordsOf } from './text';

/**
 * Clause references of `framework` whose keywords occur in any of the texts.
 * Result follows catalogue order (which is the document order of the
 * standard), so the output is stable and reads naturally in reports.
 * Unknown frameworks map to nothing rather than throwing.
 */
export function mapToClauses(framework: string, texts: readonly (string | null | undefined)[]): string[] {
  const catalogue = getFramework(framework);
  if (!catalogue) return [];
  // Each text is matched on its own so a phrase never spans two fields.
  const normalised = texts.map(normaliseText).filter((text) => text.trim() !== '');
  if (!normalised.length) return [];
  const words = wordsOf(normalised);
  const mayOccur = (keyword: string) => leadWordsOf(keyword).some((word) => words.has(word));
  return catalogue.clauses
    .filter((clause) => clause.keywords.some((keyword) => mayOccur(keyword) && normalised.some((text) => containsKeyword(text, keyword))))
    .map((clause) => clause.section);
}
