import { ScoreParts } from './assurance.types';
import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';

@InputType()
export class DateRangeInput {
  @Field(() => String, { description: 'ISO 8601 timestamp or YYYY-MM-DD' }) start!: string;
  @Field(() => String, { description: 'ISO 8601 timestamp or YYYY-MM-DD (a date means the end of that day)' }) end!: string;
}

@InputType({ description: 'POST /v1/compliance/reports' })
export class ComplianceReportInput {
  @Field(() => String) framework!: string;
  @Field(() => String, { nullable: true, description: 'pdf (default), csv or json' }) format?: string;
  @Field(() => Boolean, { nullable: true }) includeEvidence?: boolean;
  @Field(() => DateRangeInput, { nullable: true }) dateRange?: DateRangeInput;
  @Field(() => String, { nullable: true, description: 'Printed as the report title (any script); derived from the framework when absent' }) title?: string;
}

@InputType({ description: 'POST /v1/dashboard/reports' })
export class DashboardReportInput {
  @Field(() => String, { description: 'compliance, requirements, audit or summary' }) type!: string;
  @Field(() => String, { nullable: true }) framework?: string;
  @Field(() => String, { nullable: true, description: 'last_7_days, last_30_days (default), last_90_days or custom' }) period?: string;
  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD, with period custom' }) startDate?: string;
  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD, with period custom' }) endDate?: string;
  @Field(() => String, { nullable: true, description: 'pdf (default), json or csv' }) format?: string;
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
  @Field(() => String, { description: 'reviewed or approved' }) meaning!: string;
  @Field(() => String) signedAt!: string;
  @Field(() => String, { description: 'SHA-256 of the unsigned report the signer approved' }) recordSha256!: string;
  @Field(() => String, { description: 'SHA-256 over the report id, record hash, signer, time and meaning' }) signatureHash!: string;
}

@ObjectType({ description: 'A compliance or dashboard report and where to download it once completed' })
export class ReportStatus {
  @Field(() => String) reportId!: string;
  @Field(() => String, { description: 'generating, completed or failed' }) status!: string;
  @Field(() => String) type!: string;
  @Field(() => String, { nullable: true }) framework?: string | null;
  @Field(() => String) format!: string;
  @Field(() => String) estimatedCompletion!: string;
  @Field(() => String, { nullable: true }) generatedAt?: string | null;
  @Field(() => String, { nullable: true }) expiresAt?: string | null;
  @Field(() => String, { nullable: true, description: 'REST path of the file' }) downloadUrl?: string | null;
  @Field(() => String) createdAt!: string;
  @Field(() => Int, { nullable: true }) size?: number | null;
  @Field(() => String, { nullable: true }) error?: string | null;
  @Field(() => ReportRequester, { nullable: true, description: 'Who asked for it: key id and the name the key had then' }) requestedBy?: ReportRequester | null;
  @Field(() => String, { nullable: true, description: 'SHA-256 of the file served now; check a copy with verifyComplianceReport' }) sha256?: string | null;
  @Field(() => String, { nullable: true, description: 'SHA-256 of the unsigned original, which signatures are bound to' }) recordSha256?: string | null;
  @Field(() => [ReportSignature], { nullable: true }) signatures?: ReportSignature[];
}

@ObjectType()
export class ProjectInfo {
  @Field(() => String) name!: string;
  @Field(() => String) version!: string;
  @Field(() => String) lastUpdated!: string;
}

@ObjectType()
export class RequirementCounts {
  @Field(() => Int) total!: number;
  @Field(() => Int) completed!: number;
  @Field(() => Int) inProgress!: number;
  @Field(() => Int) pending!: number;
  @Field(() => Float, { description: 'percent' }) completionRate!: number;
}

@ObjectType()
export class FrameworkScore {
  @Field(() => String) name!: string;
  @Field(() => Float) score!: number;
  @Field(() => String) status!: string;
  @Field(() => String, { nullable: true }) lastAssessed?: string | null;
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
  @Field(() => String) timestamp!: string;
  @Field(() => String) type!: string;
  @Field(() => String) user!: string;
  @Field(() => String) description!: string;
}

@ObjectType()
export class DashboardStatus {
  @Field(() => String) status!: string;
  @Field(() => String, { description: 'share of successful database probes since the process started, e.g. "100.00%"' }) uptime!: string;
  @Field(() => String, { nullable: true }) lastActivity?: string | null;
  @Field(() => Int) activeUsers!: number;
  @Field(() => SystemHealth) systemHealth!: SystemHealth;
  @Field(() => [ActivityEntry]) recentActivity!: ActivityEntry[];
}

@ObjectType()
export class HistoryPoint {
  @Field(() => String) timestamp!: string;
  @Field(() => Float) value!: number;
}

@ObjectType()
export class DashboardHistory {
  @Field(() => String) metric!: string;
  @Field(() => String) period!: string;
  @Field(() => String, { nullable: true }) framework?: string | null;
  @Field(() => [HistoryPoint]) dataPoints!: HistoryPoint[];
  @Field(() => String, { description: 'increasing, decreasing or stable' }) trend!: string;
  @Field(() => Float) averageValue!: number;
}

@InputType()
export class CreateWebhookInput {
  @Field(() => String) url!: string;
  @Field(() => [String], { description: 'dotted event types (requirement.updated, …) or *' }) events!: string[];
  @Field(() => String, { nullable: true }) secret?: string;
}

@ObjectType()
export class WebhookInfo {
  @Field(() => String) id!: string;
  @Field(() => String) url!: string;
  @Field(() => [String]) events!: string[];
  @Field(() => String) createdAt!: string;
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
  @Field(() => String) type!: string;
  @Field(() => String) status!: string;
  @Field(() => Int) attempts!: number;
  @Field(() => Int, { nullable: true }) lastStatusCode?: number | null;
  @Field(() => String, { nullable: true }) lastError?: string | null;
  @Field(() => String, { nullable: true }) nextAttemptAt?: string | null;
  @Field(() => String, { nullable: true }) deliveredAt?: string | null;
  @Field(() => String) createdAt!: string;
}

@ObjectType({ description: 'A live compliance event (the same event webhooks receive)' })
export class ComplianceEvent {
  @Field(() => String) id!: string;
  @Field(() => String, { description: 'dotted type, e.g. requirement.updated' }) type!: string;
  @Field(() => String, { description: 'the dashboard WebSocket type, e.g. requirement_updated' }) wsType!: string;
  @Field(() => GraphQLJSONObject) data!: Record<string, unknown>;
  @Field(() => String) createdAt!: string;
}
