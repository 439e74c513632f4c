import { z } from 'zod';
import { ComplianceReportRequest, SignReportInput } from '../../domain/compliance/reports/report.service';
import type { ReportFile } from '../../domain/compliance/reports/report.service';
import { defineRoutes, errorResponse, routesWith, type RouteSpec } from '../route';
import type { Response } from 'express';
import * as D from '../schemas/dashboard';

const route = routesWith({ envelope: 'integration', limiter: 'plan' } as const);

/** A report id that does not exist, or names another key's report (one answer for both, so ids cannot be probed). */
export const REPORT_NOT_FOUND = errorResponse("No such report, or another key's (reports are owned: only the requester and the admin see one)");

/** A report file as a download: raw bytes in the format it was requested in, its JSON form documented. */
export const REPORT_FILE = {
  raw: true,
  produces: ['application/pdf', 'text/csv', 'application/json'],
  producesJson: D.ReportDocument,
} satisfies Partial<RouteSpec>;

/** Sends a finished report as a download; private because reports hold compliance data. */
export function sendReportFile(res: Response, file: ReportFile) {
  res
    .status(200)
    .set({
      'Content-Type': file.contentType,
      'Content-Disposition': `attachment; filename="${file.filename}"`,
      'Content-Length': String(file.content.length),
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
    })
    .end(file.content);
}

/** Compliance reports (`/v1/compliance/reports`): requested, generated as a job, downloaded until they expire. */
export const reportRoutes = defineRoutes([
  route({
    method: 'post',
    path: '/v1/compliance/reports',
    operationId: 'requestComplianceReport',
    response: D.Report,
    summary: 'Request a compliance report; it is generated in the background (poll its status, then download)',
    tag: 'reports',
    permission: 'write:compliance',
    request: { body: ComplianceReportRequest, example: { framework: 'soc2', format: 'pdf' } },
    status: 202,
    responses: {
      400: errorResponse('VALIDATION_ERROR, or INVALID_FRAMEWORK with details.supportedFrameworks'),
      403: errorResponse('AUTHORIZATION_ERROR: includeEvidence without read:audits, or the key lacks write:compliance'),
    },
    handle: ({ ctx, services, body }) => services.reports.requestCompliance(ctx, body),
  }),
  route({
    method: 'get',
    path: '/v1/compliance/reports/{reportId}',
    operationId: 'getComplianceReport',
    response: D.Report,
    summary: 'Status of a compliance report: generating or completed (with downloadUrl, generatedAt, expiresAt)',
    tag: 'reports',
    permission: 'read:compliance',
    responses: { 404: REPORT_NOT_FOUND },
    handle: ({ ctx, services, params }) => services.reports.getCompliance(ctx, params.reportId),
  }),
  route({
    method: 'get',
    path: '/v1/compliance/reports/{reportId}/download',
    operationId: 'downloadComplianceReport',
    summary: 'The report file (application/pdf, text/csv or application/json) as an attachment',
    tag: 'reports',
    permission: 'read:compliance',
    ...REPORT_FILE,
    responses: {
      200: { description: 'The report file in the format it was requested in, as an attachment' },
      404: REPORT_NOT_FOUND,
      409: errorResponse('Still generating (Retry-After) or generation failed'),
      410: errorResponse('The report expired (GONE)'),
    },
    handle: async ({ ctx, services, params, res }) => sendReportFile(res, await services.reports.downloadCompliance(ctx, params.reportId)),
  }),
  route({
    method: 'post',
    path: '/v1/compliance/reports/{reportId}/verify',
    operationId: 'verifyComplianceReport',
    summary:
      "Re-checks a report file: post the file's raw bytes (any content type). 200 with valid true when they are exactly a file this report served (the file as generated, or a signed rendition made before signing stopped re-rendering), valid false when one byte differs; `signatures` lists the signatures bound to that file",
    tag: 'reports',
    permission: 'read:compliance',
    rawBody: true,
    consumes: ['application/pdf', 'text/csv', 'application/octet-stream'],
    response: D.ReportVerification,
    responses: { 404: REPORT_NOT_FOUND, 409: errorResponse('The report has no file yet'), 413: errorResponse('Body over 50 MB') },
    handle: ({ ctx, services, params, body }) => services.reports.verifyCompliance(ctx, params.reportId, body as Buffer),
  }),
  route({
    method: 'post',
    path: '/v1/compliance/reports/{reportId}/signatures',
    operationId: 'signComplianceReport',
    summary:
      "Electronic signature (21 CFR 11.50, 11.70): the caller's key signs a completed report with a stated meaning (reviewed or approved). The signature is bound to the SHA-256 of the stored file, hashed from its bytes; the file is not rendered again and its published SHA-256 does not change (409 if the stored file no longer matches it, 410 once expired)",
    tag: 'reports',
    permission: 'sign:reports',
    request: { body: SignReportInput },
    response: D.SignedReport,
    status: 201,
    responses: {
      404: REPORT_NOT_FOUND,
      409: errorResponse('Not completed, already signed with this meaning by this key, or the stored file no longer matches its SHA-256'),
      410: errorResponse('The report expired (GONE)'),
    },
    handle: ({ ctx, services, params, body }) => services.reports.signCompliance(ctx, params.reportId, body),
  }),
]);
