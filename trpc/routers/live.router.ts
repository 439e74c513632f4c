import { subscribeComplianceEvents } from '../../domain/compliance/live';
import { z } from 'zod';
import { HistoryQuery } from '../../domain/compliance/dashboard/dashboard.service';
import { ComplianceReportRequest, DashboardReportRequest } from '../../domain/compliance/reports/report.service';
import { CreateWebhookInput, DeliveriesQuery } from '../../domain/compliance/webhooks/webhook.service';
import { COMPLIANCE_EVENT_TYPES } from '../../domain/compliance/events';
import { inputOf, procedure, router, trpcErrorsOf } from '../init';

const byReportId = z.object({ reportId: z.string() });

/** Reports, dashboard, webhooks and live compliance events. */
export const liveRouter = router({
  requestComplianceReport: procedure
    .input(inputOf(ComplianceReportRequest))
    .mutation(({ ctx, input }) => ctx.services.reports.requestCompliance(ctx.domain, input)),
  complianceReport: procedure.input(inputOf(byReportId)).query(({ ctx, input }) => ctx.services.reports.getCompliance(ctx.domain, input?.reportId)),
  requestDashboardReport: procedure
    .input(inputOf(DashboardReportRequest))
    .mutation(({ ctx, input }) => ctx.services.reports.requestDashboard(ctx.domain, input)),
  dashboardReport: procedure.input(inputOf(byReportId)).query(({ ctx, input }) => ctx.services.reports.getDashboard(ctx.domain, input?.reportId)),
  dashboardReports: procedure
    .input(inputOf(z.object({ limit: z.number().int().optional() }).optional()))
    .query(({ ctx, input }) => ctx.services.reports.listDashboard(ctx.domain, input ?? {})),
  dashboardMetrics: procedure.query(({ ctx }) => ctx.services.dashboard.metrics(ctx.domain)),
  dashboardStatus: procedure.query(({ ctx }) => ctx.services.dashboard.status(ctx.domain)),
  dashboardHistory: procedure.input(inputOf(HistoryQuery.optional())).query(({ ctx, input }) => ctx.services.dashboard.history(ctx.domain, input ?? {})),
  createWebhook: procedure.input(inputOf(CreateWebhookInput)).mutation(({ ctx, input }) => ctx.services.webhooks.create(ctx.domain, input)),
  webhooks: procedure.query(({ ctx }) => ctx.services.webhooks.list(ctx.domain)),
  deleteWebhook: procedure.input(inputOf(z.object({ id: z.string() }))).mutation(({ ctx, input }) => ctx.services.webhooks.remove(ctx.domain, input?.id)),
  webhookDeliveries: procedure
    .input(inputOf(DeliveriesQuery.extend({ id: z.string() })))
    .query(({ ctx, input }) => ctx.services.webhooks.deliveries(ctx.domain, input?.id, { limit: input?.limit, status: input?.status })),
  // The iterator itself is the subscription: an async generator around it would add a layer of
  // promises per event per subscriber. tRPC's own generator may be parked in our
  // next() when the client goes away, so the abort ends the iterator, which resolves that next().
  // A key that stops being valid (revoked, expired, permission lost) ends the stream with that error.
  complianceEvents: procedure
    .input(inputOf(z.object({ types: z.array(z.enum(COMPLIANCE_EVENT_TYPES)).optional() }).optional()))
    .subscription(({ ctx, input, signal }) => {
      const events = trpcErrorsOf(subscribeComplianceEvents(ctx.domain, ctx.services.bus, ctx.services.principals, input?.types ?? null));
      if (signal?.aborted) void events.return?.();
      else signal?.addEventListener('abort', () => void events.return?.(), { once: true });
      return events;
    }),
});
