import { requirePermission } from '../auth/principal';
import { whileValid, type PrincipalWatch } from '../auth/principal-watch';
import type { DomainContext } from '../context';
import { DomainError } from '../errors';
import { subscribeIterator, type EventBus } from '../events/bus';
import type { HealthService } from '../health';
import { JobQueue } from '../jobs/job-queue';
import type { AuditTrail } from '../audit/audit-trail.service';
import type { DomainDeps } from '../deps';
import { DashboardService } from './dashboard/dashboard.service';
import { eventFor } from './event-access';
import { COMPLIANCE_CHANNEL, COMPLIANCE_EVENT_TYPES, WS_EVENT_OF, WS_EVENT_TYPES, type ComplianceEventPublisher, type ComplianceEventType } from './events';
import { ReportService } from './reports/report.service';
import type { ComplianceStatusService } from './status/compliance-status.service';
import { DeliveryWorker } from './webhooks/delivery-worker';
import { DEFAULT_WEBHOOKS_PER_KEY, WebhookService } from './webhooks/webhook.service';

const REPORT_PURGE_INTERVAL_MS = 10 * 60_000;

/**
 * The live and asynchronous half of the compliance platform: the job queue (report generation),
 * reports, the dashboard, webhooks (the outbox behind `events`) and their delivery worker.
 */
export function createLiveComplianceServices(
  deps: DomainDeps,
  shared: { health: HealthService; events: ComplianceEventPublisher; complianceStatus: ComplianceStatusService; auditTrail: AuditTrail },
) {
  const policy = { allowPrivateNetworks: deps.webhookAllowPrivateNetworks };
  const jobs = new JobQueue(deps.rootEm, { instanceId: deps.instanceId });
  const webhooks = new WebhookService(policy, shared.auditTrail, { maxPerKey: deps.webhookMaxPerKey ?? DEFAULT_WEBHOOKS_PER_KEY });
  shared.events.setOutbox(webhooks);
  const webhookDelivery = new DeliveryWorker(deps.rootEm, { instanceId: deps.instanceId, policy, gate: deps.deliveryGate });
  webhooks.onEnqueued = () => webhookDelivery.kick();
  const reports = new ReportService(deps.rootEm, jobs, shared.events, shared.auditTrail, deps.links, {
    organisation: deps.organisationName,
    heavy: deps.heavyWork,
  });
  const dashboard = new DashboardService({ health: shared.health, measure: (em) => shared.complianceStatus.measure(em) });
  let purge: NodeJS.Timeout | undefined;

  return {
    services: { jobs, reports, dashboard, webhooks, webhookDelivery },
    start() {
      jobs.start();
      webhookDelivery.start();
      dashboard.start();
      purge = setInterval(() => void reports.purgeExpired().catch(() => undefined), REPORT_PURGE_INTERVAL_MS);
      purge.unref();
    },
    async stop() {
      clearInterval(purge);
      dashboard.stop();
      await Promise.all([jobs.stop(), webhookDelivery.stop()]);
    },
  };
}

export interface LiveComplianceEvent {
  id: string;
  type: string;
  wsType: string;
  data: Record<string, unknown>;
  createdAt: string;
}

/**
 * A subscription to compliance events: `types` may name dotted types (`requirement.updated`)
 * or the dashboard's types (`requirement_updated`); none means all. It lasts as long as the key may
 * read the dashboard: revoked, expired or without the permission, the stream ends with that error.
 */
export function subscribeComplianceEvents(
  ctx: Pick<DomainContext, 'principal'>,
  bus: EventBus,
  principals: PrincipalWatch,
  types?: readonly string[] | null,
): AsyncIterableIterator<LiveComplianceEvent> {
  return whileValid(principals, ctx.principal, 'read:dashboard', complianceEventStream(ctx, bus, types));
}

function complianceEventStream(
  ctx: Pick<DomainContext, 'principal'>,
  bus: EventBus,
  types?: readonly string[] | null,
): AsyncIterableIterator<LiveComplianceEvent> {
  const principal = requirePermission(ctx, 'read:dashboard');
  const wanted = types && types.length ? new Set(types) : null;
  if (wanted) {
    const known = new Set<string>([...COMPLIANCE_EVENT_TYPES, ...WS_EVENT_TYPES]);
    const unknown = [...wanted].filter((t) => !known.has(t));
    if (unknown.length) {
      throw new DomainError('VALIDATION_ERROR', `Unknown event type(s): ${unknown.slice(0, 5).join(', ')}`, {
        fields: [{ field: 'types', message: `each type must be one of: ${[...known].join(', ')}` }],
        details: { unknown, allowed: [...known] },
      });
    }
  }
  return subscribeIterator<LiveComplianceEvent>(
    bus,
    COMPLIANCE_CHANNEL,
    // Only what this key may read (domain/compliance/event-access.ts).
    (e) => (!wanted || wanted.has(e.type) || wanted.has(WS_EVENT_OF[e.type as ComplianceEventType])) && eventFor(principal, e) !== null,
    (e) => ({
      id: e.id,
      type: e.type,
      wsType: WS_EVENT_OF[e.type as ComplianceEventType] ?? 'system_alert',
      data: eventFor(principal, e)!.data,
      createdAt: e.createdAt,
    }),
  );
}
