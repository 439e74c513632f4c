import type { RouteSpec } from './route';
import { ttsRoutes } from './routes/tts.routes';

/** Every documented REST path, in one table: routing and the OpenAPI document both come from here. */
export const ROUTE_TABLE: RouteSpec[] = [...ttsRoutes];
