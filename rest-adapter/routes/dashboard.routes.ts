import { z } from 'zod';
import { HistoryQuery } from '../../domain/compliance/dashboard/dashboard.service';
import { DashboardReportRequest } from '../../domain/compliance/reports/report.service';
import { defineRoutes, errorResponse, routesWith } from '../route';
import { REPORT_FILE, REPORT_NOT_FOUND, sendReportFile } from './reports.routes';
import * as D from '../schemas/dashboard';

const route = routesWith({ envelope: 'dashboard', limiter: 'plan' } as const);

const metrics = (prefix: string, operationId: string) =>
  route({
    method: 'get',
    path: `${prefix}/metrics`,
    operationId,
    response: D.DashboardMetrics,
    summary: 'Project metrics: requirement counts and completion rate, compliance score per framework',
    tag: 'dashboard',
    permission: 'read:dashboard',
    handle: ({ ctx, services }) => services.dashboard.metrics(ctx),
  });

const status = (prefix: string, operationId: string) =>
  route({
    method: 'get',
    path: `${prefix}/status`,
    operationId,
    response: D.DashboardStatus,
    summary: 'Real-time status: health, uptime (share of successful database probes since start), active users, recent activity',
    tag: 'dashboard',
    permission: 'read:dashboard',
    handle: ({ ctx, services }) => services.dashboard.status(ctx),
  });

/** The dashboard API (`/v1/dashboard/*`) and its short listing (`/api/dashboard/*`), in the dashboard envelope. */
export const dashboardRoutes = defineRoutes([
  metrics('/v1/dashboard', 'getDashboardMetrics'),
  status('/v1/dashboard', 'getDashboardStatus'),
  route({
    method: 'get',
    path: '/v1/dashboard/history',
    operationId: 'getDashboardHistory',
    response: D.DashboardHistory,
    summary: 'History of a metric from recorded snapshots: one point per day (per week for 1y), with trend and average',
    tag: 'dashboard',
    permission: 'read:dashboard',
    request: { query: HistoryQuery },
    responses: { 400: errorResponse('Invalid period, metric or framework') },
    handle: ({ ctx, services, query }) => services.dashboard.history(ctx, query),
  }),
  route({
    method: 'post',
    path: '/v1/dashboard/reports',
    operationId: 'requestDashboardReport',
    response: D.Report,
    summary: 'Request a dashboard report (id prefix dash_rpt_); generated in the background',
    tag: 'dashboard',
    permission: 'write:dashboard',
    request: { body: DashboardReportRequest, example: { type: 'compliance', period: 'last_30_days', format: 'pdf' } },
    status: 202,
    responses: {
      400: errorResponse('Invalid parameters'),
      403: errorResponse('AUTHORIZATION_ERROR: type audit without read:audits, or the key lacks write:dashboard'),
    },
    handle: ({ ctx, services, body }) => services.reports.requestDashboard(ctx, body),
  }),
  route({
    method: 'get',
    path: '/v1/dashboard/reports',
    operationId: 'listDashboardReports',
    response: D.ReportList,
    summary: "Recent dashboard reports, newest first: the caller's own (the admin's listing has every key's)",
    tag: 'dashboard',
    permission: 'read:dashboard',
    request: { query: z.object({ limit: z.coerce.number().int().min(1).max(100).optional() }) },
    handle: ({ ctx, services, query }) => services.reports.listDashboard(ctx, query),
  }),
  route({
    method: 'get',
    path: '/v1/dashboard/reports/{reportId}',
    operationId: 'getDashboardReport',
    response: D.Report,
    summary: 'Status of a dashboard report',
    tag: 'dashboard',
    permission: 'read:dashboard',
    responses: { 404: REPORT_NOT_FOUND },
    handle: ({ ctx, services, params }) => services.reports.getDashboard(ctx, params.reportId),
  }),
  route({
    method: 'get',
    path: '/v1/dashboard/reports/{reportId}/download',
    operationId: 'downloadDashboardReport',
    summary: 'The dashboard report file as an attachment',
    tag: 'dashboard',
    permission: 'read:dashboard',
    ...REPORT_FILE,
    responses: { 404: REPORT_NOT_FOUND, 409: errorResponse('Still generating'), 410: errorResponse('Expired') },
    handle: async ({ ctx, services, params, res }) => sendReportFile(res, await services.reports.downloadDashboard(ctx, params.reportId)),
  }),
  // --- the short listing ---
  metrics('/api/dashboard', 'getDashboardMetricsShort'),
  status('/api/dashboard', 'getDashboardStatusShort'),
  route({
    method: 'get',
    path: '/api/dashboard/reports',
    operationId: 'listDashboardReportsShort',
    response: D.ReportList,
    summary:
      "Recent dashboard reports, the caller's own (the admin's listing has every key's); the short listing reads reports with GET, request them with POST /v1/dashboard/reports",
    tag: 'dashboard',
    permission: 'read:dashboard',
    request: { query: z.object({ limit: z.coerce.number().int().min(1).max(100).optional() }) },
    handle: ({ ctx, services, query }) => services.reports.listDashboard(ctx, query),
  }),
]);
