/**
 * Core types for the compliance frameworks catalogue.
 *
 * The catalogue is static reference data: it never talks to a database or the
 * network, so every consumer (validation engine, reports, API layers) can rely
 * on the same clause list without I/O.
 */

export type FrameworkId = 'iso13485' | 'fda21cfr11' | 'gdpr' | 'soc2';

/** Display/iteration order used everywhere frameworks are listed. */
export const SUPPORTED_FRAMEWORKS: readonly FrameworkId[] = Object.freeze(['iso13485', 'fda21cfr11', 'gdpr', 'soc2'] as const);

/** Narrows untrusted input (query params, DB rows) to a known framework id. */
export function isFrameworkId(value: unknown): value is FrameworkId {
  return typeof value === 'string' && (SUPPORTED_FRAMEWORKS as readonly string[]).includes(value);
}

export interface Clause {
  /** Stable, URL-safe identifier, e.g. `fda21cfr11-11.10e`. */
  id: string;
  /** Reference as practitioners cite it, e.g. `11.10(e)`, `Art. 32`, `CC6.1`. */
  section: string;
  title: string;
  description: string;
  /**
   * Lower-case phrases that signal a requirement touches this clause. They
   * drive the validation engine's compliance mapping, so prefer specific
   * multi-word phrases over generic single words.
   */
  keywords: string[];
  /** One of the owning framework's `categories`. */
  category: string;
}

/** A validation rule as shown in the catalogue (the engine owns the logic). */
export interface ValidationRuleInfo {
  id: string;
  name: string;
  description: string;
}

export interface Framework {
  id: FrameworkId;
  name: string;
  description: string;
  version: string;
  categories: string[];
  clauses: Clause[];
  validationRules: ValidationRuleInfo[];
}

/** Clause data as authored; the id is derived so it cannot drift from the section. */
export type ClauseDefinition = Omit<Clause, 'id'>;

/**
 * Derives a stable id from a section reference:
 * `11.10(e)` -> `11.10e`, `Art. 32` -> `art32`, `CC6.1` -> `cc6.1`.
 */
export function clauseId(framework: FrameworkId, section: string): string {
  const slug = section
    .toLowerCase()
    .replace(/^art\.\s*/, 'art')
    .replace(/[()\s]/g, '');
  return `${framework}-${slug}`;
}

export function defineClauses(framework: FrameworkId, definitions: readonly ClauseDefinition[]): Clause[] {
  return definitions.map((definition) => ({ id: clauseId(framework, definition.section), ...definition }));
}
