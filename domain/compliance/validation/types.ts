import type { FrameworkId } from '../catalogue/types';

export interface RequirementForValidation {
  title: string;
  description?: string | null;
  /** Null or absent: not yet assigned to a framework. */
  framework?: FrameworkId | null;
  category?: string | null;
  priority?: string | null;
  acceptanceCriteria?: string[] | null;
  technicalContext?: {
    scope?: string;
    dataFlow?: string;
    relatedComponents?: string[];
  } | null;
  // `null` members are accepted because the persisted JSON column stores them.
  implementation?: {
    testFile?: string | null;
    gitBranch?: string | null;
    relatedIssues?: string[];
    completedAt?: string | null;
  } | null;
  status?: string;
}

export type ValidationSeverity = 'error' | 'warning' | 'info';
export const VALIDATION_SEVERITIES: readonly ValidationSeverity[] = ['error', 'warning', 'info'];

export interface ValidationIssue {
  /** Stable id from the catalogue's `validationRules`. */
  ruleId: string;
  severity: ValidationSeverity;
  /** Path of the offending input, e.g. `title` or `acceptanceCriteria[2]`. */
  field: string;
  /** Human-readable explanation of why the rule fired. */
  message: string;
}

export interface ValidationResult {
  valid: boolean;
  /** Integer in 0..100. */
  score: number;
  issues: ValidationIssue[];
  suggestions: string[];
  /** Framework id -> matched clause references (e.g. `11.10(e)`) in catalogue order. */
  complianceMapping: Record<string, string[]>;
}
