import { ComplianceEventTypeEnum, DashboardEventTypeEnum, FrameworkIdEnum, HistoryMetricEnum, HistoryPeriodEnum } from '../schema/enums';
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Int, Mutation, Query, Resolver, Root, Subscription } from 'type-graphql';
import { subscribeComplianceEvents, type LiveComplianceEvent } from '../domain/compliance/live';
import {
  ComplianceEvent,
  ComplianceReportInput,
  CreatedWebhook,
  CreateWebhookInput,
  DashboardHistory,
  DashboardMetrics,
  DashboardReportInput,
  DashboardStatus,
  ReportStatus,
  WebhookDeliveryInfo,
  WebhookInfo,
} from '../schema/live.types';
import type { GqlContext } from './context';
import { lossAsLastEvent, rethrowLoss, type LostEvent } from './lost-principal';
import { plain } from '../transport/plain';
import { selectedFields } from './selection';

/** A report's signatures (a JSON column) are read only when the selection asks for them. */
const reportRead = (info: GraphQLResolveInfo) => ({ signatures: selectedFields(info).has('signatures') });

/** Reports, dashboard, webhooks and live compliance events: the same domain operations as REST. */
@Resolver()
export class LiveResolver {
  @Mutation(() => ReportStatus, { description: 'POST /v1/compliance/reports' })
  requestComplianceReport(@Arg('input', () => ComplianceReportInput) input: ComplianceReportInput, @Ctx() { services, domain }: GqlContext) {
    return services.reports.requestCompliance(domain, plain(input));
  }

  @Query(() => ReportStatus, { description: 'GET /v1/compliance/reports/{reportId}' })
  complianceReport(@Arg('reportId', () => String) reportId: string, @Ctx() { services, domain }: GqlContext, @Info() info: GraphQLResolveInfo) {
    return services.reports.getCompliance(domain, reportId, reportRead(info));
  }

  @Mutation(() => ReportStatus, { description: 'POST /v1/dashboard/reports' })
  requestDashboardReport(@Arg('input', () => DashboardReportInput) input: DashboardReportInput, @Ctx() { services, domain }: GqlContext) {
    return services.reports.requestDashboard(domain, plain(input));
  }

  @Query(() => ReportStatus, { description: 'GET /v1/dashboard/reports/{reportId}' })
  dashboardReport(@Arg('reportId', () => String) reportId: string, @Ctx() { services, domain }: GqlContext, @Info() info: GraphQLResolveInfo) {
    return services.reports.getDashboard(domain, reportId, reportRead(info));
  }

  @Query(() => [ReportStatus], { description: 'GET /api/dashboard/reports' })
  async dashboardReports(
    @Arg('limit', () => Int, { nullable: true }) limit: number | undefined,
    @Ctx() { services, domain }: GqlContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return (await services.reports.listDashboard(domain, { limit }, reportRead(info))).data;
  }

  @Query(() => DashboardMetrics, { description: 'GET /v1/dashboard/metrics' })
  dashboardMetrics(@Ctx() { services, domain }: GqlContext) {
    return services.dashboard.metrics(domain);
  }

  @Query(() => DashboardStatus, { description: 'GET /v1/dashboard/status' })
  dashboardStatus(@Ctx() { services, domain }: GqlContext) {
    return services.dashboard.status(domain);
  }

  @Query(() => DashboardHistory, { description: 'GET /v1/dashboard/history' })
  dashboardHistory(
    @Arg('period', () => HistoryPeriodEnum, { nullable: true }) period: string | undefined,
    @Arg('metric', () => HistoryMetricEnum, { nullable: true }) metric: string | undefined,
    @Arg('framework', () => FrameworkIdEnum, { nullable: true }) framework: string | undefined,
    @Ctx() { services, domain }: GqlContext,
  ) {
    return services.dashboard.history(domain, { period: period ?? undefined, metric: metric ?? undefined, framework: framework ?? undefined });
  }

  @Mutation(() => CreatedWebhook, { description: 'POST /v1/webhooks' })
  createWebhook(@Arg('input', () => CreateWebhookInput) input: CreateWebhookInput, @Ctx() { services, domain }: GqlContext) {
    return services.webhooks.create(domain, plain(input));
  }

  @Query(() => [WebhookInfo], { description: 'GET /v1/webhooks' })
  async webhooks(@Ctx() { services, domain }: GqlContext) {
    return (await services.webhooks.list(domain)).data;
  }

  @Mutation(() => Boolean, { description: 'DELETE /v1/webhooks/{id}' })
  async deleteWebhook(@Arg('id', () => String) id: string, @Ctx() { services, domain }: GqlContext) {
    return (await services.webhooks.remove(domain, id)).deleted;
  }

  @Query(() => [WebhookDeliveryInfo], { description: 'GET /v1/webhooks/{id}/deliveries' })
  async webhookDeliveries(
    @Arg('id', () => String) id: string,
    @Arg('limit', () => Int, { nullable: true }) limit: number | undefined,
    @Ctx() { services, domain }: GqlContext,
  ) {
    return (await services.webhooks.deliveries(domain, id, { limit })).data;
  }

  @Subscription(() => ComplianceEvent, {
    description:
      'Live compliance events; `types` and `wsTypes` filter by event type or dashboard WebSocket type (an event matching either passes; none = all). Needs read:dashboard. ' +
      'When the key is revoked, expires or loses the permission, one last event carries the error (AUTHENTICATION_ERROR or AUTHORIZATION_ERROR), then the subscription completes.',
    subscribe: ({ args, context }) => {
      const { services, domain } = context as GqlContext;
      const wanted = [...(args.types ?? []), ...(args.wsTypes ?? [])];
      return lossAsLastEvent(subscribeComplianceEvents(domain, services.bus, services.principals, wanted.length ? wanted : null));
    },
  })
  complianceEvents(
    // Two lists: an event type and its WebSocket type would share one enum name (requirement.updated, requirement_updated).
    @Arg('types', () => [ComplianceEventTypeEnum], { nullable: true }) _types: string[] | undefined,
    @Arg('wsTypes', () => [DashboardEventTypeEnum], { nullable: true }) _wsTypes: string[] | undefined,
    @Root() event: LiveComplianceEvent | LostEvent,
  ): ComplianceEvent {
    return rethrowLoss(event);
  }
}
