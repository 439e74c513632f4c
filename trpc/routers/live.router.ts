import { subscribeComplianceEvents } from '../../domain/compliance/live';
import type { ComplianceReportRequest, DashboardReportRequest } from '../../domain/compliance/reports/report.service';
import type { CreateWebhookInput } from '../../domain/compliance/webhooks/webhook.service';
import { body, procedure, router, trpcErrorsOf } from '../init';

type HistoryInput = { period?: string; metric?: string; framework?: string };

/** Reports, dashboard, webhooks and live compliance events. */
export const liveRouter = router({
  requestComplianceReport: procedure.input(body<ComplianceReportRequest>()).mutation(({ ctx, input }) => ctx.services.reports.requestCompliance(ctx.domain, input)),
  complianceReport: procedure.input(body<{ reportId: string }>()).query(({ ctx, input }) => ctx.services.reports.getCompliance(ctx.domain, input?.reportId)),
  requestDashboardReport: procedure.input(body<DashboardReportRequest>()).mutation(({ ctx, input }) => ctx.services.reports.requestDashboard(ctx.domain, input)),
  dashboardReport: procedure.input(body<{ reportId: string }>()).query(({ ctx, input }) => ctx.services.reports.getDashboard(ctx.domain, input?.reportId)),
  dashboardReports: procedure.input(body<{ limit?: number } | undefined>()).query(({ ctx, input }) => ctx.services.reports.listDashboard(ctx.domain, input ?? {})),
  dashboardMetrics: procedure.query(({ ctx }) => ctx.services.dashboard.metrics(ctx.domain)),
  dashboardStatus: procedure.query(({ ctx }) => ctx.services.dashboard.status(ctx.domain)),
  dashboardHistory: procedure.input(body<HistoryInput | undefined>()).query(({ ctx, input }) => ctx.services.dashboard.history(ctx.domain, input ?? {})),
  createWebhook: procedure.input(body<CreateWebhookInput>()).mutation(({ ctx, input }) => ctx.services.webhooks.create(ctx.domain, input)),
  webhooks: procedure.query(({ ctx }) => ctx.services.webhooks.list(ctx.domain)),
  deleteWebhook: procedure.input(body<{ id: string }>()).mutation(({ ctx, input }) => ctx.services.webhooks.remove(ctx.domain, input?.id)),
  webhookDeliveries: procedure
    .input(body<{ id: string; limit?: number; status?: string }>())
    .query(({ ctx, input }) => ctx.services.webhooks.deliveries(ctx.domain, input?.id, { limit: input?.limit, status: input?.status })),
  // The iterator itself is the subscription: an async generator around it would add a layer of
  // promises per event per subscriber. tRPC's own generator may be parked in our
  // next() when the client goes away, so the abort ends the iterator, which resolves that next().
  // A key that stops being valid (revoked, expired, permission lost) ends the stream with that error.
  complianceEvents: procedure.input(body<{ types?: string[] } | undefined>()).subscription(({ ctx, input, signal }) => {
    const events = trpcErrorsOf(subscribeComplianceEvents(ctx.domain, ctx.services.bus, ctx.services.principals, input?.types ?? null));
    if (signal?.aborted) void events.return?.();
    else signal?.addEventListener('abort', () => void events.return?.(), { once: true });
    return events;
  }),
});
