import type {
  FindingSeverity,
  FindingStatus,
  FrameworkId,
  HashMode,
  HistoryMetric,
  HistoryPeriod,
  Permission,
  Plan,
  Priority,
  ReportFormat,
  RequirementStatus,
  WebhookEvent,
} from './generated/graphql';

/**
 * The closed sets, as the schema's enums name them (the generated types). Each is written as a
 * Record over its enum, so tsc fails when the schema gains or loses a value the console lists.
 */
const all = <T extends string>(labels: Record<T, string>): [T, string][] => Object.entries(labels) as [T, string][];
const keys = <T extends string>(set: Record<T, true>): T[] => Object.keys(set) as T[];

/** An enum value as the console shows it: lower case with `-` (IN_PROGRESS → in-progress), REST's spelling. */
export const show = (v: string | null | undefined) => (v ?? '').toLowerCase().replace(/_/g, '-');

export const FRAMEWORKS = all<FrameworkId>({ ISO13485: 'ISO 13485', FDA21CFR11: '21 CFR Part 11', GDPR: 'GDPR', SOC2: 'SOC 2' });
/** A framework's display name, from its enum name or its REST id (the keys of complianceMapping). */
export const frameworkName = (id: string | null | undefined) => FRAMEWORKS.find(([f]) => f === id || f.toLowerCase() === id)?.[1] ?? id ?? 'all frameworks';
const labelled = <T extends string>(values: T[]): [T, string][] => values.map((v) => [v, show(v)]);
export const REQUIREMENT_STATUSES = labelled(keys<RequirementStatus>({ PENDING: true, IN_PROGRESS: true, COMPLETED: true }));
export const PRIORITIES = labelled(keys<Priority>({ CRITICAL: true, HIGH: true, MEDIUM: true, LOW: true }));
export const SEVERITIES = labelled(keys<FindingSeverity>({ LOW: true, MEDIUM: true, HIGH: true, CRITICAL: true }));
export const FINDING_STATUSES = labelled(keys<FindingStatus>({ OPEN: true, IN_PROGRESS: true, RESOLVED: true }));
export const HISTORY_PERIODS = all<HistoryPeriod>({ LAST_7_DAYS: '7d', LAST_30_DAYS: '30d', LAST_90_DAYS: '90d', LAST_YEAR: '1y' });
export const HISTORY_METRICS = all<HistoryMetric>({
  COMPLIANCE_SCORE: 'Compliance score',
  REQUIREMENT_COMPLETION: 'Requirement completion',
  VALIDATION_RATE: 'Validation pass rate',
});
export const REPORT_FORMATS = all<ReportFormat>({ PDF: 'pdf', CSV: 'csv', JSON: 'json' });
/** Webhook events as REST and the receivers write them (requirement.updated). */
export const WEBHOOK_EVENTS = all<Exclude<WebhookEvent, 'ALL'>>({
  REQUIREMENT_CREATED: 'requirement.created',
  REQUIREMENT_UPDATED: 'requirement.updated',
  REQUIREMENT_DELETED: 'requirement.deleted',
  COMPLIANCE_SCORE_CHANGED: 'compliance.score_changed',
  VALIDATION_COMPLETED: 'validation.completed',
  FINDING_CREATED: 'finding.created',
  FINDING_UPDATED: 'finding.updated',
  REPORT_COMPLETED: 'report.completed',
  USER_ACTIVITY: 'user.activity',
  SYSTEM_ALERT: 'system.alert',
});
export const eventName = (e: string) => WEBHOOK_EVENTS.find(([v]) => v === e)?.[1] ?? (e === 'ALL' ? '*' : e);
/** Permissions as the documentation (and REST) writes them. */
const PERMISSION_NAMES: Record<Permission, string> = {
  READ_REQUIREMENTS: 'read:requirements',
  WRITE_REQUIREMENTS: 'write:requirements',
  READ_COMPLIANCE: 'read:compliance',
  WRITE_COMPLIANCE: 'write:compliance',
  READ_AUDITS: 'read:audits',
  WRITE_AUDITS: 'write:audits',
  READ_DASHBOARD: 'read:dashboard',
  WRITE_DASHBOARD: 'write:dashboard',
  MANAGE_WEBHOOKS: 'manage:webhooks',
  MANAGE_API_KEYS: 'manage:api-keys',
  READ_AUDIT_TRAIL: 'read:audit-trail',
  SIGN_REPORTS: 'sign:reports',
  TTS_GENERATE: 'tts:generate',
  TTS_READ: 'tts:read',
  TTS_ADMIN: 'tts:admin',
};
export const permissionName = (p: Permission) => PERMISSION_NAMES[p] ?? p;
/** An identifier-like value (a provider) as REST writes it: lower case (PROVIDER_A → provider_a). */
export const showId = (v: string | null | undefined) => (v ?? '').toLowerCase();
export const HASH_MODES = labelled(keys<HashMode>({ DIRECT: true, CONTENT: true, SEMANTIC: true }));
export const PLANS = labelled(keys<Plan>({ STANDARD: true, PREMIUM: true, ENTERPRISE: true }));
