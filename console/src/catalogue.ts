/** The closed sets the API documents (schema descriptions); the console offers exactly these. */
export const FRAMEWORKS: [string, string][] = [
  ['iso13485', 'ISO 13485'],
  ['fda21cfr11', '21 CFR Part 11'],
  ['gdpr', 'GDPR'],
  ['soc2', 'SOC 2'],
];
export const frameworkName = (id: string | null | undefined) => FRAMEWORKS.find(([f]) => f === id)?.[1] ?? id ?? 'all frameworks';
export const REQUIREMENT_STATUSES = ['pending', 'in-progress', 'completed'] as const;
export const PRIORITIES = ['critical', 'high', 'medium', 'low'] as const;
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export const FINDING_STATUSES = ['open', 'in-progress', 'resolved'] as const;
export const HISTORY_PERIODS = ['7d', '30d', '90d', '1y'] as const;
export const HISTORY_METRICS: [string, string][] = [
  ['compliance_score', 'Compliance score'],
  ['requirement_completion', 'Requirement completion'],
  ['validation_rate', 'Validation pass rate'],
];
export const REPORT_FORMATS = ['pdf', 'csv', 'json'] as const;
export const WEBHOOK_EVENTS = [
  'requirement.created',
  'requirement.updated',
  'requirement.deleted',
  'compliance.score_changed',
  'validation.completed',
  'finding.created',
  'finding.updated',
  'report.completed',
  'user.activity',
  'system.alert',
] as const;
