import { FDA21CFR11_CATEGORIES, FDA21CFR11_CLAUSES } from './fda21cfr11';
import { GDPR_CATEGORIES, GDPR_CLAUSES } from './gdpr';
import { ISO13485_CATEGORIES, ISO13485_CLAUSES } from './iso13485';
import { SOC2_CATEGORIES, SOC2_CLAUSES } from './soc2';
import { SUPPORTED_FRAMEWORKS, type Clause, type Framework, type FrameworkId } from './types';
import { validationRulesFor } from './validation-rules';

/** Recursively freezes catalogue data: it is shared by every caller and must not be mutated. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  }
  return value;
}

const FRAMEWORKS: Readonly<Record<FrameworkId, Framework>> = deepFreeze({
  iso13485: {
    id: 'iso13485',
    name: 'ISO 13485',
    description: 'Quality management system requirements for organisations that design, produce, install or service medical devices.',
    version: '2016',
    categories: ISO13485_CATEGORIES,
    clauses: ISO13485_CLAUSES,
    validationRules: validationRulesFor('iso13485'),
  },
  fda21cfr11: {
    id: 'fda21cfr11',
    name: 'FDA 21 CFR Part 11',
    description:
      'US FDA conditions under which electronic records and electronic signatures are accepted as trustworthy equivalents of paper records and handwritten signatures.',
    // The codified rule dates from 1997; the 2003 FDA guidance only narrows
    // enforcement and does not change the section numbering we map against.
    version: '1997',
    categories: FDA21CFR11_CATEGORIES,
    clauses: FDA21CFR11_CLAUSES,
    validationRules: validationRulesFor('fda21cfr11'),
  },
  gdpr: {
    id: 'gdpr',
    name: 'EU General Data Protection Regulation',
    description:
      'EU regulation governing how personal data of people in the EU/EEA is collected, used, protected and transferred, and the rights those people hold.',
    version: '2016/679',
    categories: GDPR_CATEGORIES,
    clauses: GDPR_CLAUSES,
    validationRules: validationRulesFor('gdpr'),
  },
  soc2: {
    id: 'soc2',
    name: 'SOC 2 (Trust Services Criteria)',
    description:
      'AICPA criteria for security, availability, processing integrity, confidentiality and privacy controls at service organisations, assessed in SOC 2 reports.',
    version: '2017 (revised points of focus 2022)',
    categories: SOC2_CATEGORIES,
    clauses: SOC2_CLAUSES,
    validationRules: validationRulesFor('soc2'),
  },
} satisfies Record<FrameworkId, Framework>);

/** Returns the framework, or `undefined` when an untrusted id is not in the catalogue. */
export function getFramework(id: FrameworkId): Framework;
export function getFramework(id: string): Framework | undefined;
export function getFramework(id: string): Framework | undefined {
  return Object.prototype.hasOwnProperty.call(FRAMEWORKS, id) ? FRAMEWORKS[id as FrameworkId] : undefined;
}

/** All frameworks in `SUPPORTED_FRAMEWORKS` order. */
export function listFrameworks(): Framework[] {
  return SUPPORTED_FRAMEWORKS.map((id) => FRAMEWORKS[id]);
}

/** Looks a clause up by its cited reference, e.g. `getClause('gdpr', 'Art. 32')`. */
export function getClause(framework: FrameworkId, section: string): Clause | undefined {
  return FRAMEWORKS[framework].clauses.find((clause) => clause.section === section);
}
