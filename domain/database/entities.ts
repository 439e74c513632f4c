import { AuditEntry } from '../audit/audit-entry.entity';
import { ApiKey } from '../auth/api-key.entity';
import { Activity } from '../compliance/activity/activity.entity';
import { MetricSnapshot } from '../compliance/dashboard/snapshot.entity';
import { AuditFinding } from '../compliance/findings/audit-finding.entity';
import { Report } from '../compliance/reports/report.entity';
import { ReadModelVersion } from '../compliance/read-model/read-model-version.entity';
import { Requirement } from '../compliance/requirements/requirement.entity';
import { Webhook, WebhookDelivery, WebhookEvent } from '../compliance/webhooks/webhook.entity';
import { Job } from '../jobs/job.entity';
import { AudioEntry } from '../tts/audio-entry.entity';
import { AudioBlob } from '../tts/blob.entity';
import { ProviderStat } from '../tts/provider-stat.entity';

export const ENTITIES = [
  ApiKey,
  AudioEntry,
  AudioBlob,
  ProviderStat,
  Job,
  Requirement,
  AuditFinding,
  Report,
  MetricSnapshot,
  Activity,
  Webhook,
  WebhookDelivery,
  WebhookEvent,
  ReadModelVersion,
  AuditEntry,
];
