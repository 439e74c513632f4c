import { isFrameworkId } from '../catalogue/types';
import { RULE_IDS, type RuleId } from '../catalogue/validation-rules';
import { FRAMEWORK_EXPECTATIONS, type FrameworkExpectation } from './framework-expectations';
import { findAmbiguousTerms, isTestableCriterion, usesShould } from './language';
import { mapToClauses } from './mapping';
import { countWords, excerpt, findKeyword, normaliseText } from './text';
import type { RequirementForValidation, ValidationIssue, ValidationResult, ValidationSeverity } from './types';

export type { RequirementForValidation, ValidationIssue, ValidationResult, ValidationSeverity } from './types';

/** Points deducted from 100 per issue. */
export const SEVERITY_PENALTY: Readonly<Record<ValidationSeverity, number>> = Object.freeze({
  error: 25,
  warning: 10,
  info: 2,
});

/** A requirement with no errors still needs this score to be considered valid. */
export const VALIDITY_THRESHOLD = 70;

const MIN_TITLE_LENGTH = 10;
const MAX_TITLE_LENGTH = 120;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** An issue plus the one-sentence fix offered for it. */
interface Finding extends ValidationIssue {
  suggestion: string;
}

/** A piece of free text the language rules inspect, with its input path and a readable label. */
interface TextField {
  field: string;
  label: string;
  text: string;
}

/** Pre-computed view of the input shared by all rules. */
interface Context {
  requirement: RequirementForValidation;
  title: string;
  description: string;
  criteria: string[];
  textFields: TextField[];
  /** Normalised title, description, criteria and category for keyword rules. */
  keywordTexts: string[];
  completed: boolean;
}

type Rule = (context: Context) => Finding[];

function finding(ruleId: RuleId, severity: ValidationSeverity, field: string, message: string, suggestion: string): Finding {
  return { ruleId, severity, field, message, suggestion };
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

function buildContext(requirement: RequirementForValidation): Context {
  const title = asText(requirement.title);
  const description = asText(requirement.description);
  const criteria = Array.isArray(requirement.acceptanceCriteria) ? requirement.acceptanceCriteria.map(asText) : [];
  const textFields: TextField[] = [
    { field: 'title', label: 'Title', text: title },
    { field: 'description', label: 'Description', text: description },
    ...criteria.map((text, index) => ({
      field: `acceptanceCriteria[${index}]`,
      label: `Acceptance criterion ${index + 1}`,
      text,
    })),
  ];
  return {
    requirement,
    title,
    description,
    criteria,
    textFields,
    keywordTexts: [title, description, ...criteria, asText(requirement.category)].map(normaliseText),
    completed: asText(requirement.status).toLowerCase() === 'completed',
  };
}

const frameworkSupported: Rule = ({ requirement }) =>
  isFrameworkId(requirement.framework)
    ? []
    : requirement.framework === null || requirement.framework === undefined
      ? [
          // Not yet assigned (the document requires a title only): a gap to close, not a defect.
          finding(
            RULE_IDS.frameworkSupported,
            'warning',
            'framework',
            'The requirement is not assigned to a framework yet, so no framework rules or clause mapping are applied and it is not scored.',
            'Assign it to one of the supported frameworks: iso13485, fda21cfr11, gdpr or soc2.',
          ),
        ]
      : [
          finding(
            RULE_IDS.frameworkSupported,
            'error',
            'framework',
            `Framework "${String(requirement.framework)}" is not in the catalogue, so no framework rules or clause mapping can be applied.`,
            'Choose one of the supported frameworks: iso13485, fda21cfr11, gdpr or soc2.',
          ),
        ];

const titleRules: Rule = ({ title }) => {
  if (!title) {
    return [finding(RULE_IDS.titleRequired, 'error', 'title', 'Title is missing or blank.', 'Give the requirement a short, specific title.')];
  }
  if (title.length < MIN_TITLE_LENGTH || countWords(title) < 2) {
    return [
      finding(
        RULE_IDS.titleSpecific,
        'warning',
        'title',
        `Title "${title}" is too short to identify a single requirement (minimum ${MIN_TITLE_LENGTH} characters and two words).`,
        'Make the title name both the subject and the behaviour, e.g. "Audit trail for batch record edits".',
      ),
    ];
  }
  if (title.length > MAX_TITLE_LENGTH) {
    return [
      finding(
        RULE_IDS.titleSpecific,
        'info',
        'title',
        `Title is ${title.length} characters long (over ${MAX_TITLE_LENGTH}); detail probably belongs in the description.`,
        `Shorten the title to under ${MAX_TITLE_LENGTH} characters and move detail into the description.`,
      ),
    ];
  }
  return [];
};

const descriptionRequired: Rule = ({ description }) =>
  description
    ? []
    : [
        finding(
          RULE_IDS.descriptionRequired,
          'warning',
          'description',
          'Description is missing, so reviewers cannot see the intent or context of the requirement.',
          'Add a description explaining why the requirement exists and what it covers.',
        ),
      ];

const acceptanceCriteriaRules: Rule = ({ criteria }) => {
  if (criteria.every((criterion) => criterion === '')) {
    return [
      finding(
        RULE_IDS.acceptanceCriteriaRequired,
        'error',
        'acceptanceCriteria',
        'No acceptance criteria are defined, so there is no objective way to show the requirement is met.',
        'Add at least one measurable acceptance criterion, ideally in Given/When/Then form.',
      ),
    ];
  }
  return criteria.flatMap((criterion, index) => {
    if (isTestableCriterion(criterion)) return [];
    const reason = criterion
      ? `("${excerpt(criterion)}") is not measurable: it has no observable outcome, number/threshold or Given/When/Then structure`
      : 'is empty';
    return [
      finding(
        RULE_IDS.acceptanceCriteriaTestable,
        'warning',
        `acceptanceCriteria[${index}]`,
        `Acceptance criterion ${index + 1} ${reason}.`,
        'Rewrite each vague acceptance criterion as an observable outcome with a threshold, e.g. "Given X, when Y, then Z within 2 seconds".',
      ),
    ];
  });
};

const ambiguousLanguage: Rule = ({ textFields }) =>
  textFields.flatMap(({ field, label, text }) =>
    findAmbiguousTerms(text).map((term) =>
      finding(
        RULE_IDS.ambiguousLanguage,
        'warning',
        field,
        `${label} uses the ambiguous term "${term}", which cannot be verified objectively.`,
        `Replace "${term}" with a measurable value or precise wording.`,
      ),
    ),
  );

const modalShould: Rule = ({ textFields }) =>
  textFields
    .filter(({ text }) => usesShould(text))
    .map(({ field, label }) =>
      finding(
        RULE_IDS.modalShould,
        'info',
        field,
        `${label} uses "should", which reads as optional rather than mandatory.`,
        'Use "shall" for mandatory behaviour, or mark the statement explicitly as a recommendation.',
      ),
    );

const testLinkRequired: Rule = ({ requirement, completed }) => {
  if (asText(requirement.implementation?.testFile)) return [];
  return [
    completed
      ? finding(
          RULE_IDS.testLinkRequired,
          'error',
          'implementation.testFile',
          'Requirement is marked completed but has no linked test, so its verification cannot be traced.',
          'Link the test file that verifies this requirement.',
        )
      : finding(
          RULE_IDS.testLinkRequired,
          'warning',
          'implementation.testFile',
          'No test is linked yet; verification will not be traceable until one is.',
          'Link the test file that verifies this requirement.',
        ),
  ];
};

const completionDate: Rule = ({ requirement, completed }) => {
  const completedAt = asText(requirement.implementation?.completedAt);
  if (completedAt && !(ISO_8601.test(completedAt) && !Number.isNaN(Date.parse(completedAt)))) {
    return [
      finding(
        RULE_IDS.completionDateRequired,
        'error',
        'implementation.completedAt',
        `Completion date "${excerpt(completedAt, 40)}" is not a valid ISO 8601 timestamp.`,
        'Record the completion time as an ISO 8601 timestamp, e.g. 2024-05-01T12:00:00Z.',
      ),
    ];
  }
  if (completed && !completedAt) {
    return [
      finding(
        RULE_IDS.completionDateRequired,
        'error',
        'implementation.completedAt',
        'Requirement is marked completed but has no completion date, leaving a gap in the audit record.',
        'Record the completion time as an ISO 8601 timestamp, e.g. 2024-05-01T12:00:00Z.',
      ),
    ];
  }
  return [];
};

/** "a", "a or b", "a, b or c". */
function joinAlternatives(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

function checkExpectation(expectation: FrameworkExpectation, keywordTexts: string[]): Finding[] {
  const trigger = findKeyword(keywordTexts, expectation.triggers);
  if (!trigger) return [];
  const missing = expectation.components.filter((component) => !findKeyword(keywordTexts, component.keywords));
  if (missing.length === 0) return [];
  const gaps = joinAlternatives(missing.map((component) => component.label));
  return [
    finding(
      expectation.ruleId,
      expectation.severity,
      'acceptanceCriteria',
      `Requirement mentions "${trigger}" (${expectation.topic}) but does not address ${gaps}; ${expectation.reference} ${expectation.expectation}.`,
      expectation.suggestion,
    ),
  ];
}

const frameworkExpectations: Rule = ({ requirement, keywordTexts }) =>
  isFrameworkId(requirement.framework)
    ? FRAMEWORK_EXPECTATIONS[requirement.framework].flatMap((expectation) => checkExpectation(expectation, keywordTexts))
    : [];

/** Evaluation order is part of the contract: issues are reported in this order. */
const RULES: readonly Rule[] = [
  frameworkSupported,
  titleRules,
  descriptionRequired,
  acceptanceCriteriaRules,
  ambiguousLanguage,
  modalShould,
  testLinkRequired,
  completionDate,
  frameworkExpectations,
];

export function scoreIssues(issues: readonly Pick<ValidationIssue, 'severity'>[]): number {
  const penalty = issues.reduce((total, issue) => total + SEVERITY_PENALTY[issue.severity], 0);
  return Math.max(0, 100 - penalty);
}

/**
 * Validates one requirement. Pure and deterministic: the same input always
 * yields the same result, so results can be stored and compared over time.
 */
export function validateRequirement(requirement: RequirementForValidation): ValidationResult {
  const context = buildContext(requirement);
  const findings = RULES.flatMap((rule) => rule(context));

  const issues: ValidationIssue[] = findings.map(({ ruleId, severity, field, message }) => ({ ruleId, severity, field, message }));
  const suggestions = [...new Set(findings.map((item) => item.suggestion))];
  const score = scoreIssues(issues);
  const hasErrors = issues.some((issue) => issue.severity === 'error');

  const framework = requirement.framework;
  // An unassigned requirement maps to no framework's clauses: an empty mapping.
  const complianceMapping: Record<string, string[]> =
    framework === null || framework === undefined
      ? {}
      : { [String(framework)]: mapToClauses(String(framework), [context.title, context.description, ...context.criteria, asText(requirement.category)]) };

  return {
    valid: !hasErrors && score >= VALIDITY_THRESHOLD,
    score,
    issues,
    suggestions,
    complianceMapping,
  };
}
