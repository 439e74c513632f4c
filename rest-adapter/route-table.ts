import type { RouteSpec } from './route';
import { ttsRoutes } from './routes/tts.routes';
import { complianceRoutes } from './routes/compliance.routes';
import { complianceShortRoutes } from './routes/compliance-short.routes';
import { reportRoutes } from './routes/reports.routes';
import { dashboardRoutes } from './routes/dashboard.routes';
import { webhookRoutes } from './routes/webhooks.routes';
import { auditTrailRoutes } from './routes/audit-trail.routes';
import { assuranceRoutes } from './routes/assurance.routes';
import { openAiRoutes } from './routes/openai.routes';

/** Every documented REST path, in one table: routing and the OpenAPI document both come from here. */
export const ROUTE_TABLE: RouteSpec[] = [
  ...ttsRoutes,
  ...complianceRoutes,
  ...complianceShortRoutes,
  ...reportRoutes,
  ...dashboardRoutes,
  ...webhookRoutes,
  ...auditTrailRoutes,
  ...assuranceRoutes,
  ...openAiRoutes,
];
