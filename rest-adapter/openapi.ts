import { z } from 'zod';
import { SERVICE_VERSION } from '../domain/health';
import type { Envelope, RouteSpec } from './route';

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No content',
  400: 'Invalid request',
  401: 'Missing or invalid API key',
  403: 'Insufficient permissions',
  404: 'Not found',
  429: 'Rate limit exceeded',
  500: 'Server error',
  503: 'Service unavailable',
};

function schemaOf(t: z.ZodType): Record<string, unknown> {
  try {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(t, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    return rest;
  } catch {
    return {};
  }
}

const envelopeRef: Record<Envelope, string> = {
  tts: '#/components/schemas/TtsError',
  integration: '#/components/schemas/IntegrationError',
  dashboard: '#/components/schemas/DashboardError',
};

/** OpenAPI 3.1 generated from the route table, so the document cannot drift from the routes. */
export function buildOpenApi(routes: RouteSpec[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const params = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    if (r.request?.query) {
      const qs = schemaOf(r.request.query) as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, schema] of Object.entries(qs.properties ?? {})) {
        params.push({ name, in: 'query', required: !!qs.required?.includes(name), schema: schema as any });
      }
    }
    const responses: Record<string, unknown> = {};
    const okStatus = r.status ?? 200;
    responses[String(okStatus)] = { description: STATUS_TEXT[okStatus] ?? 'OK' };
    const errorStatuses = new Set([400, 429, 500, ...(r.permission && r.permission !== 'tts:read' && r.permission !== 'tts:generate' ? [401, 403] : []), ...(r.permission?.startsWith('tts:') ? [] : [401, 403])]);
    for (const [status, doc] of Object.entries(r.responses ?? {})) {
      const s = Number(status);
      if (s >= 400) errorStatuses.add(s);
      else responses[status] = { description: doc.description, ...(doc.contentType ? { content: { [doc.contentType]: { schema: {} } } } : {}) };
    }
    for (const s of errorStatuses) {
      const doc = r.responses?.[s];
      responses[String(s)] = {
        description: doc?.description ?? STATUS_TEXT[s] ?? 'Error',
        content: { 'application/json': { schema: { $ref: envelopeRef[r.envelope] } } },
      };
    }
    const op: Record<string, unknown> = {
      operationId: r.operationId,
      summary: r.summary,
      tags: [r.tag],
      parameters: params,
      responses,
      ...(r.permission ? { 'x-permission': r.permission } : {}),
      security: r.tag === 'health' ? [] : [{ bearer: [] }],
    };
    if (r.request?.body) {
      op.requestBody = { required: true, content: { 'application/json': { schema: schemaOf(r.request.body) } } };
    }
    (paths[r.path] ??= {})[r.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Speech and compliance gateway',
      version: SERVICE_VERSION,
      description:
        'REST compatibility layer of the gateway. Text-to-speech under /api/v1, the compliance platform under /v1 (detailed) and /api (short listing). The same operations exist over GraphQL (/graphql) and tRPC (/trpc).',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' } },
      schemas: {
        TtsError: {
          type: 'object',
          properties: {
            error: {
              type: 'object',
              required: ['message', 'code'],
              properties: { message: { type: 'string' }, code: { type: 'string' }, provider: { type: ['string', 'null'] }, details: { type: 'object' } },
            },
          },
        },
        IntegrationError: {
          type: 'object',
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message', 'details', 'requestId'],
              properties: {
                code: { type: 'string' },
                message: { type: 'string' },
                details: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } } },
                requestId: { type: 'string' },
              },
            },
          },
        },
        DashboardError: {
          type: 'object',
          properties: {
            error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'object' } } },
          },
        },
      },
    },
    paths,
  };
}

export function docsPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Gateway API</title>
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script>
</body></html>`;
}

export const DOCS_INIT_JS = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#ui' });`;
