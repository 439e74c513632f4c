export { validateRequirement, scoreIssues, SEVERITY_PENALTY, VALIDITY_THRESHOLD } from './engine';
export type { RequirementForValidation, ValidationIssue, ValidationResult, ValidationSeverity } from './types';
export { mapToClauses } from './mapping';
export { AMBIGUOUS_TERMS, findAmbiguousTerms, isTestableCriterion } from './language';
export { FRAMEWORK_EXPECTATIONS } from './framework-expectations';
export type { FrameworkExpectation } from './framework-expectations';
