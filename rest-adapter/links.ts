// The domain's Links port answered from the route table, so every address it hands out is a route that exists.
import type { Links } from '../domain/links';
import type { RouteSpec } from './route';
import { ROUTE_TABLE } from './route-table';

/**
 * A filler for the path of the route `operationId`: the template is split once at its parameters,
 * so an address costs a few concatenations (audio URLs are built on every generation answer).
 */
function pathOf(operationId: string, routes: readonly RouteSpec[]): { method: string; fill: (...values: string[]) => string } {
  const route = routes.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`links: no route '${operationId}' in the route table`);
  const pieces = route.path.split(/\{[^}]+\}/);
  return {
    method: route.method.toUpperCase(),
    fill: (...values) => {
      if (values.length !== pieces.length - 1) throw new Error(`links: '${route.path}' takes ${pieces.length - 1} values`);
      let out = pieces[0];
      for (let i = 0; i < values.length; i++) out += values[i] + pieces[i + 1];
      return out;
    },
  };
}

export function restLinks(routes: readonly RouteSpec[] = ROUTE_TABLE): Links {
  const audio = pathOf('getAudio', routes).fill;
  const stream = pathOf('streamAudio', routes).fill;
  const chunk = pathOf('getAudioChunk', routes).fill;
  const status = pathOf('getGenerationStatus', routes).fill;
  const download = { compliance: pathOf('downloadComplianceReport', routes).fill, dashboard: pathOf('downloadDashboardReport', routes).fill };
  const verify = pathOf('verifyComplianceReport', routes);
  const sign = pathOf('signComplianceReport', routes);
  // Printed in every PDF, the same for every report: the reader puts in the report's id.
  const instructions = { verify: `${verify.method} ${verify.fill('{id}')}`, sign: `${sign.method} ${sign.fill('{id}')}` };
  return {
    audio: (hash) => audio(hash),
    audioStream: (hash) => stream(hash),
    audioChunk: (hash, index) => chunk(hash, String(index)),
    generationStatus: (hash) => status(hash),
    reportDownload: (origin, reportId) => download[origin](reportId),
    reportInstructions: () => instructions,
  };
}
