export { SUPPORTED_FRAMEWORKS, isFrameworkId, clauseId } from './types';
export type { Clause, Framework, FrameworkId, ValidationRuleInfo } from './types';
export { getFramework, listFrameworks, getClause } from './frameworks';
export { RULE_IDS, COMMON_VALIDATION_RULES, FRAMEWORK_VALIDATION_RULES, validationRulesFor } from './validation-rules';
export type { RuleId } from './validation-rules';
