import { registerEnumType } from 'type-graphql';
import { AUDIT_ENTITY_TYPES, AUDIT_PROBLEMS } from '../domain/audit/audit-trail.service';
import { PLANS } from '../domain/auth/api-key.entity';
import { ALL_PERMISSIONS } from '../domain/auth/permissions';
import { SUPPORTED_FRAMEWORKS } from '../domain/compliance/catalogue';
import { DASHBOARD_STATES } from '../domain/compliance/dashboard/dashboard.service';
import { HISTORY_METRICS, HISTORY_PERIODS, TRENDS } from '../domain/compliance/dashboard/history';
import { COMPLIANCE_EVENT_TYPES, WS_EVENT_TYPES } from '../domain/compliance/events';
import { FINDING_STATUSES, SEVERITIES } from '../domain/compliance/findings/audit-finding.entity';
import { GATE_CHECK_NAMES, GATE_RESULTS } from '../domain/compliance/gate/gate.service';
import { REPORT_VIEW_STATUSES, REPORT_TYPES } from '../domain/compliance/reports/report.entity';
import { DASHBOARD_PERIODS, SIGNATURE_MEANINGS, VERIFICATION_MATCHES } from '../domain/compliance/reports/report.service';
import { REPORT_FORMATS } from '../domain/compliance/reports/render/types';
import { PRIORITIES, REQUIREMENT_STATUSES, VALIDATION_OUTCOMES } from '../domain/compliance/requirements/requirement.entity';
import { COMPLIANCE_LEVELS } from '../domain/compliance/status/measurement';
import { TRACE_EVIDENCE_KINDS } from '../domain/compliance/traceability/traceability.service';
import { VALIDATION_SEVERITIES } from '../domain/compliance/validation/types';
import { DELIVERY_STATUSES } from '../domain/compliance/webhooks/webhook.entity';
import { WEBHOOK_EVENT_NAMES } from '../domain/compliance/webhooks/webhook.service';
import { AUDIO_FORMATS, PROVIDER_IDS, QUALITIES } from '../domain/tts/catalogue';
import { HASH_MODES } from '../domain/tts/text/hash';
import { GENERATION_STATES } from '../domain/tts/async-generation';
import { PROGRESS_EVENT_TYPES } from '../domain/tts/generation-response';

/**
 * GraphQL enums over the domain's closed sets. Each enum is built from the same list the domain
 * (and the REST contract) validates with, so the three cannot drift. A value's GraphQL name is its
 * REST string upper-cased with every run of other characters as `_` (`in-progress` → IN_PROGRESS,
 * `requirement.updated` → REQUIREMENT_UPDATED, `iso13485` → ISO13485); names that would not be
 * identifiers are spelled out below. The enum's internal value IS the REST string, so resolvers
 * and the domain see exactly what REST sees, and answers map back to the names on the way out.
 */
const SPECIAL_NAMES: Record<string, string> = {
  '*': 'ALL',
  '7d': 'LAST_7_DAYS',
  '30d': 'LAST_30_DAYS',
  '90d': 'LAST_90_DAYS',
  '1y': 'LAST_YEAR',
};

/** The GraphQL name of a REST value (see above). */
export function graphqlEnumName(rest: string): string {
  const name =
    SPECIAL_NAMES[rest] ??
    rest
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '');
  if (!/^[A-Z][A-Z0-9_]*$/.test(name) || name === 'TRUE' || name === 'FALSE' || name === 'NULL') {
    throw new Error(`no GraphQL enum name for ${JSON.stringify(rest)}: add it to SPECIAL_NAMES`);
  }
  return name;
}

/** Every enum registered here, by GraphQL name: name → (GraphQL value name → REST string). */
export const GRAPHQL_ENUMS: Record<string, Record<string, string>> = {};

function restEnum<T extends string>(name: string, values: readonly T[], description: string): Record<string, T> {
  const obj: Record<string, T> = {};
  for (const v of values) {
    const key = graphqlEnumName(v);
    if (key in obj) throw new Error(`${name}: ${JSON.stringify(v)} and ${JSON.stringify(obj[key])} would both be ${key}`);
    obj[key] = v;
  }
  Object.freeze(obj);
  registerEnumType(obj, {
    name,
    description: `${description} (REST: ${values.map((v) => `"${v}"`).join(', ')})`,
    valuesConfig: Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, { description: `REST "${v}"` }])),
  });
  GRAPHQL_ENUMS[name] = obj;
  return obj;
}

export const ProviderIdEnum = restEnum('ProviderId', PROVIDER_IDS, 'A speech provider');
export const AudioFormatEnum = restEnum('AudioFormat', AUDIO_FORMATS, 'An audio file format');
export const QualityEnum = restEnum('Quality', QUALITIES, 'Audio quality (which a provider offers: Provider.qualities)');
export const HashModeEnum = restEnum('HashMode', HASH_MODES, 'How text is keyed in the audio cache');
export const GenerationStateEnum = restEnum('GenerationState', GENERATION_STATES, 'Where an asynchronous generation is');
export const GenerationEventTypeEnum = restEnum('GenerationEventType', PROGRESS_EVENT_TYPES, 'The kind of a progressive generation event');

export const FrameworkIdEnum = restEnum('FrameworkId', SUPPORTED_FRAMEWORKS, 'A compliance framework');
export const PriorityEnum = restEnum('Priority', PRIORITIES, 'Requirement priority');
export const RequirementStatusEnum = restEnum('RequirementStatus', REQUIREMENT_STATUSES, 'Requirement status');
export const ValidationOutcomeEnum = restEnum('ValidationOutcome', VALIDATION_OUTCOMES, 'Outcome of a requirement validation');
export const ValidationSeverityEnum = restEnum('ValidationSeverity', VALIDATION_SEVERITIES, 'Severity of a validation issue');
export const FindingSeverityEnum = restEnum('FindingSeverity', SEVERITIES, 'Audit finding severity');
export const FindingStatusEnum = restEnum('FindingStatus', FINDING_STATUSES, 'Audit finding status');
export const ComplianceLevelEnum = restEnum('ComplianceLevel', COMPLIANCE_LEVELS, 'A compliance level derived from the score');
export const GateCheckNameEnum = restEnum('GateCheckName', GATE_CHECK_NAMES, 'A check of the compliance gate');
export const GateOutcomeEnum = restEnum('GateOutcome', GATE_RESULTS, 'The compliance gate verdict');
export const TraceEvidenceKindEnum = restEnum('TraceEvidenceKind', TRACE_EVIDENCE_KINDS, 'Where a piece of traceability evidence comes from');

export const ReportTypeEnum = restEnum('ReportType', REPORT_TYPES, 'A report type');
export const ReportFormatEnum = restEnum('ReportFormat', REPORT_FORMATS, 'A report file format');
export const ReportStateEnum = restEnum(
  'ReportState',
  REPORT_VIEW_STATUSES,
  'Where a report is in its life: generating, completed (downloadable until expiresAt), failed, or expired (no file any more)',
);
export const ReportPeriodEnum = restEnum('ReportPeriod', DASHBOARD_PERIODS, 'The period a dashboard report covers');
export const SignatureMeaningEnum = restEnum('SignatureMeaning', SIGNATURE_MEANINGS, 'The meaning of an electronic signature (21 CFR 11.50)');
export const VerificationMatchEnum = restEnum(
  'VerificationMatch',
  VERIFICATION_MATCHES,
  'Which file of a report the verified bytes are: the file as generated, or a signed rendition made before signing stopped re-rendering',
);
export const HistoryPeriodEnum = restEnum('HistoryPeriod', HISTORY_PERIODS, 'The period of the dashboard history');
export const HistoryMetricEnum = restEnum('HistoryMetric', HISTORY_METRICS, 'A metric of the dashboard history');
export const TrendEnum = restEnum('Trend', TRENDS, 'The direction of a history');
export const DashboardStateEnum = restEnum('DashboardState', DASHBOARD_STATES, 'Overall dashboard health');

export const ComplianceEventTypeEnum = restEnum('ComplianceEventType', COMPLIANCE_EVENT_TYPES, 'A compliance event type (webhook `type`)');
export const DashboardEventTypeEnum = restEnum('DashboardEventType', WS_EVENT_TYPES, 'A dashboard WebSocket event type');
export const WebhookEventEnum = restEnum('WebhookEvent', WEBHOOK_EVENT_NAMES, 'An event a webhook subscribes to; ALL is every event');
export const DeliveryStatusEnum = restEnum('DeliveryStatus', DELIVERY_STATUSES, 'Webhook delivery status');

export const PlanEnum = restEnum('Plan', PLANS, 'An API key plan');
export const PermissionEnum = restEnum('Permission', ALL_PERMISSIONS, 'A permission an API key holds');
export const AuditEntityTypeEnum = restEnum('AuditEntityType', AUDIT_ENTITY_TYPES, 'The kind of record an audit trail entry is about');
export const AuditProblemEnum = restEnum('AuditProblem', AUDIT_PROBLEMS, 'What is wrong with a broken audit chain link');
