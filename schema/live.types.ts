import {
  ComplianceEventTypeEnum,
  ComplianceLevelEnum,
  DashboardEventTypeEnum,
  DashboardStateEnum,
  DeliveryStatusEnum,
  FrameworkIdEnum,
  HistoryMetricEnum,
  HistoryPeriodEnum,
  ReportFormatEnum,
  ReportPeriodEnum,
  ReportStateEnum,
  ReportTypeEnum,
  SignatureMeaningEnum,
  TrendEnum,
  WebhookEventEnum,
} from './enums';
import { DateTimeScalar } from './scalars';
import { ScoreParts } from './scoring.types';
import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';

@InputType()
export class DateRangeInput {
  @Field(() => String, { description: 'ISO 8601 timestamp or YYYY-MM-DD' }) start!: string;
  @Field(() => String, { description: 'ISO 8601 timestamp or YYYY-MM-DD (a date means the end of that day)' }) end!: string;
}

@InputType({ description: 'POST /v1/compliance/reports' })
export class ComplianceReportInput {
  @Field(() => FrameworkIdEnum) framework!: string;
  @Field(() => ReportFormatEnum, { nullable: true, description: 'PDF when absent' }) format?: string;
  @Field(() => Boolean, { nullable: true }) includeEvidence?: boolean;
  @Field(() => DateRangeInput, { nullable: true }) dateRange?: DateRangeInput;
  @Field(() => String, { nullable: true, description: 'Printed as the report title (any script); derived from the framework when absent' }) title?: string;
}

@InputType({ description: 'POST /v1/dashboard/reports' })
export class DashboardReportInput {
  @Field(() => ReportTypeEnum) type!: string;
  @Field(() => FrameworkIdEnum, { nullable: true }) framework?: string;
  @Field(() => ReportPeriodEnum, { nullable: true, description: 'LAST_30_DAYS when absent' }) period?: string;
  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD, with period custom' }) startDate?: string;
  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD, with period custom' }) endDate?: string;
  @Field(() => ReportFormatEnum, { nullable: true, description: 'PDF when absent' }) format?: string;
}

@ObjectType()
export class ReportRequester {
  @Field(() => String, { nullable: true }) keyId!: string | null;
  @Field(() => String, { nullable: true }) name!: string | null;
}

@ObjectType({ description: 'An electronic signature (21 CFR 11.50): name, time, meaning, bound to the record hash (11.70)' })
export class ReportSignature {
  @Field(() => String) signerName!: string;
  @Field(() => String) keyId!: string;
  @Field(() => SignatureMeaningEnum) meaning!: string;
  @Field(() => DateTimeScalar) signedAt!: string;
  @Field(() => String, { description: 'SHA-256 of the stored report file the signer approved' }) recordSha256!: string;
  @Field(() => String, { description: 'SHA-256 over the report id, record hash, signer, time and meaning' }) signatureHash!: string;
}

@ObjectType({ description: 'A compliance or dashboard report and where to download it once completed' })
export class ReportStatus {
  @Field(() => String) reportId!: string;
  @Field(() => ReportStateEnum) status!: string;
  @Field(() => ReportTypeEnum) type!: string;
  @Field(() => FrameworkIdEnum, { nullable: true }) framework?: string | null;
  @Field(() => ReportFormatEnum) format!: string;
  @Field(() => DateTimeScalar) estimatedCompletion!: string;
  @Field(() => DateTimeScalar, { nullable: true }) generatedAt?: string | null;
  @Field(() => DateTimeScalar, { nullable: true }) expiresAt?: string | null;
  @Field(() => String, { nullable: true, description: 'REST path of the file' }) downloadUrl?: string | null;
  @Field(() => DateTimeScalar) createdAt!: string;
  @Field(() => Int, { nullable: true }) size?: number | null;
  @Field(() => String, { nullable: true }) error?: string | null;
  @Field(() => ReportRequester, { nullable: true, description: 'Who asked for it: key id and the name the key had then' }) requestedBy?: ReportRequester | null;
  @Field(() => String, { nullable: true, description: 'SHA-256 of the file served now; check a copy with verifyComplianceReport' }) sha256?: string | null;
  @Field(() => String, { nullable: true, description: 'SHA-256 of the file as generated, which signatures are bound to (the file is never re-rendered)' })
  recordSha256?: string | null;
  @Field(() => [ReportSignature], { nullable: true }) signatures?: ReportSignature[];
}

@ObjectType()
export class ProjectInfo {
  @Field(() => String) name!: string;
  @Field(() => String) version!: string;
  @Field(() => DateTimeScalar) lastUpdated!: string;
}

@ObjectType()
export class RequirementCounts {
  @Field(() => Int) total!: number;
  @Field(() => Int) completed!: number;
  @Field(() => Int) inProgress!: number;
  @Field(() => Int) pending!: number;
  @Field(() => Float, { description: 'percent' }) completionRate!: number;
  @Field(() => Int, { description: "of total, requirements not yet assigned to a framework (in no framework's score)" }) unassigned!: number;
}

@ObjectType()
export class FrameworkScore {
  @Field(() => FrameworkIdEnum) name!: string;
  @Field(() => Float) score!: number;
  @Field(() => ComplianceLevelEnum) status!: string;
  @Field(() => DateTimeScalar, { nullable: true }) lastAssessed?: string | null;
  @Field(() => ScoreParts, { description: 'How the score was reached (docs/scoring.md)' }) scoring!: ScoreParts;
}

@ObjectType()
export class ComplianceOverview {
  @Field(() => [FrameworkScore]) frameworks!: FrameworkScore[];
  @Field(() => Float) overallScore!: number;
}

@ObjectType()
export class DashboardMetrics {
  @Field(() => ProjectInfo) project!: ProjectInfo;
  @Field(() => RequirementCounts) requirements!: RequirementCounts;
  @Field(() => ComplianceOverview) compliance!: ComplianceOverview;
}

@ObjectType()
export class SystemHealth {
  @Field(() => String) validation!: string;
  @Field(() => String) compliance!: string;
  @Field(() => String) monitoring!: string;
}

@ObjectType()
export class ActivityEntry {
  @Field(() => DateTimeScalar) timestamp!: string;
  @Field(() => String) type!: string;
  @Field(() => String, { description: "the acting key's name then (display only: names are not unique)" }) user!: string;
  @Field(() => String, {
    nullable: true,
    description: "the acting key's id (admin for the configured admin key); null on entries recorded before key ids were kept",
  })
  userKeyId?: string | null;
  @Field(() => String) description!: string;
}

@ObjectType()
export class DashboardStatus {
  @Field(() => DashboardStateEnum) status!: string;
  @Field(() => String, { description: 'share of successful database probes since the process started, e.g. "100.00%"' }) uptime!: string;
  @Field(() => DateTimeScalar, { nullable: true }) lastActivity?: string | null;
  @Field(() => Int) activeUsers!: number;
  @Field(() => SystemHealth) systemHealth!: SystemHealth;
  @Field(() => [ActivityEntry]) recentActivity!: ActivityEntry[];
}

@ObjectType()
export class HistoryPoint {
  @Field(() => DateTimeScalar) timestamp!: string;
  @Field(() => Float) value!: number;
}

@ObjectType()
export class DashboardHistory {
  @Field(() => HistoryMetricEnum) metric!: string;
  @Field(() => HistoryPeriodEnum) period!: string;
  @Field(() => FrameworkIdEnum, { nullable: true }) framework?: string | null;
  @Field(() => [HistoryPoint]) dataPoints!: HistoryPoint[];
  @Field(() => TrendEnum) trend!: string;
  @Field(() => Float) averageValue!: number;
}

@InputType()
export class CreateWebhookInput {
  @Field(() => String) url!: string;
  @Field(() => [WebhookEventEnum], { description: 'event types, or ALL for every event' }) events!: string[];
  @Field(() => String, { nullable: true }) secret?: string;
}

@ObjectType()
export class WebhookInfo {
  @Field(() => String) id!: string;
  @Field(() => String) url!: string;
  @Field(() => [WebhookEventEnum]) events!: string[];
  @Field(() => DateTimeScalar) createdAt!: string;
}

@ObjectType({ description: 'A new webhook; the secret is shown only here' })
export class CreatedWebhook extends WebhookInfo {
  @Field(() => String) secret!: string;
}

@ObjectType()
export class WebhookDeliveryInfo {
  @Field(() => String) id!: string;
  @Field(() => String) webhookId!: string;
  @Field(() => String) eventId!: string;
  @Field(() => ComplianceEventTypeEnum) type!: string;
  @Field(() => DeliveryStatusEnum, { description: 'SKIPPED: never sent (the owner key was revoked or expired, or may not read the event; lastError says why)' })
  status!: string;
  @Field(() => Int) attempts!: number;
  @Field(() => Int, { nullable: true }) lastStatusCode?: number | null;
  @Field(() => String, { nullable: true }) lastError?: string | null;
  @Field(() => DateTimeScalar, { nullable: true }) nextAttemptAt?: string | null;
  @Field(() => DateTimeScalar, { nullable: true }) deliveredAt?: string | null;
  @Field(() => DateTimeScalar) createdAt!: string;
}

@ObjectType({ description: 'A live compliance event (the same event webhooks receive)' })
export class ComplianceEvent {
  @Field(() => String) id!: string;
  @Field(() => ComplianceEventTypeEnum, { description: 'the webhook type, e.g. REQUIREMENT_UPDATED (REST requirement.updated)' }) type!: string;
  @Field(() => DashboardEventTypeEnum, { description: 'the dashboard WebSocket type, e.g. REQUIREMENT_UPDATED (REST requirement_updated)' }) wsType!: string;
  @Field(() => GraphQLJSONObject) data!: Record<string, unknown>;
  @Field(() => DateTimeScalar) createdAt!: string;
}
