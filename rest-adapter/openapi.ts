import { z } from 'zod';
import { SERVICE_VERSION } from '../domain/health';
import { EVENT_READ_PERMISSIONS } from '../domain/compliance/event-access';
import { COMPLIANCE_EVENT_TYPES } from '../domain/compliance/events';
import type { Envelope, RouteSpec } from './route';
import { DashboardError, IntegrationError, OpenAiError, TtsError } from './schemas/common';
import { GenerationWebhookBody } from './schemas/tts';

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No content',
  206: 'Partial content',
  304: 'Not modified',
  400: 'Invalid request',
  401: 'Missing or invalid API key',
  403: 'Insufficient permissions',
  404: 'Not found',
  413: 'Request body too large',
  415: 'Request body is not JSON',
  429: 'Rate limit exceeded',
  500: 'Server error',
  503: 'Service unavailable',
};

/**
 * JSON Schema of a zod type. Requests are described as accepted (`io: input`); answers as sent but
 * open to additions (also `input`: declared fields are required and typed, new fields may appear,
 * which a client must tolerate anyway).
 */
function schemaOf(t: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(t, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: dropSafeIntegerBounds,
  }) as Record<string, unknown>;
  return rest;
}

/** zod writes `z.number().int()` as bounded by ±(2^53 − 1); that is JavaScript's limit, not the contract's. */
function dropSafeIntegerBounds(ctx: { jsonSchema: Record<string, unknown> }) {
  const s = ctx.jsonSchema;
  if (s.maximum === Number.MAX_SAFE_INTEGER) delete s.maximum;
  if (s.minimum === Number.MIN_SAFE_INTEGER) delete s.minimum;
}

const envelopeRef: Record<Envelope, string> = {
  tts: '#/components/schemas/TtsError',
  integration: '#/components/schemas/IntegrationError',
  dashboard: '#/components/schemas/DashboardError',
  openai: '#/components/schemas/OpenAiError',
};

/** Bytes: `format: binary` (OpenAPI 3.0 generators read it) beside 3.1's `contentMediaType`. */
const binary = (mediaType: string) => ({ schema: { type: 'string', format: 'binary', contentMediaType: mediaType } });

/** The success content of a route: its JSON schema, or the media types a raw route sends. */
function successContent(r: RouteSpec): Record<string, unknown> | undefined {
  if (r.response) return { 'application/json': { schema: schemaOf(r.response) } };
  if (!r.produces?.length) return undefined;
  return Object.fromEntries(r.produces.map((m) => [m, m === 'application/json' && r.producesJson ? { schema: schemaOf(r.producesJson) } : binary(m)]));
}

const rateLimitHeaders = {
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
};

const header = (description: string, type = 'integer') => ({ description, schema: { type } });
const REQUEST_ID = { 'X-Request-Id': header("The request's id (the caller's own `X-Request-Id` when it sent a sane one); logs carry it", 'string') };

/** The headers of a successful answer: the request id, and the limiter's counters. */
function successHeaders(r: RouteSpec): Record<string, unknown> {
  if (r.tag === 'health') return REQUEST_ID;
  if (r.limiter === 'tts') {
    return {
      ...REQUEST_ID,
      'RateLimit-Policy': header('The speech limit per client address: `<limit>;w=<window seconds>`', 'string'),
      'RateLimit-Limit': header('Requests allowed in the window'),
      'RateLimit-Remaining': header('Requests left in the window'),
      'RateLimit-Reset': header('Seconds until the window resets'),
    };
  }
  return {
    ...REQUEST_ID,
    'X-RateLimit-Limit': header("The key's plan: requests per hour (absent for a caller the plan does not limit)"),
    'X-RateLimit-Remaining': header('Requests left this hour'),
    'X-RateLimit-Reset': header('Unix seconds when the count resets'),
  };
}

/** Speech operations need a key only when `API_KEY` is set (open by default, as in development); the rest always do. */
function securityOf(r: RouteSpec): Record<string, string[]>[] {
  if (r.tag === 'health') return [];
  if (r.permission === 'tts:read' || r.permission === 'tts:write') return [{}, { bearer: [] }];
  return [{ bearer: [] }];
}

/** OpenAPI 3.1 generated from the route table, so the document cannot drift from the routes. */
export function buildOpenApi(routes: RouteSpec[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const params: Record<string, unknown>[] = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    if (r.request?.query) {
      const qs = schemaOf(r.request.query) as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, schema] of Object.entries(qs.properties ?? {})) {
        params.push({ name, in: 'query', required: !!qs.required?.includes(name), schema });
      }
    }
    const bodyless = r.method === 'head';
    const responses: Record<string, unknown> = {};
    const okStatus = r.status ?? 200;
    const ok = successContent(r);
    responses[String(okStatus)] = {
      description: r.responses?.[okStatus]?.description ?? STATUS_TEXT[okStatus] ?? 'OK',
      headers: successHeaders(r),
      ...(ok && !bodyless ? { content: ok } : {}),
    };
    const errorStatuses = new Set([400, 429, 500, 503]);
    if (r.permission) [401, 403].forEach((s) => errorStatuses.add(s));
    if (r.request?.body) [413, 415].forEach((s) => errorStatuses.add(s));
    if (r.rawBody) errorStatuses.add(413);
    for (const [status, doc] of Object.entries(r.responses ?? {})) {
      const s = Number(status);
      if (s === okStatus) continue;
      if (s >= 400) errorStatuses.add(s);
      else if (s === 206) responses[status] = { description: doc.description, ...(ok ? { content: ok } : {}) };
      else responses[status] = { description: doc.description, ...(doc.schema ? { content: { 'application/json': { schema: schemaOf(doc.schema) } } } : {}) };
    }
    for (const s of [...errorStatuses].sort()) {
      const doc = r.responses?.[s];
      responses[String(s)] = {
        description: doc?.description ?? STATUS_TEXT[s] ?? 'Error',
        ...(s === 429 || s === 503 ? { headers: rateLimitHeaders } : {}),
        ...(bodyless ? {} : { content: { 'application/json': { schema: { $ref: envelopeRef[r.envelope] } } } }),
      };
    }
    if (r.operationId === 'ready' && r.response) {
      responses['503'] = { description: 'The database does not answer', content: { 'application/json': { schema: schemaOf(r.response) } } };
    }
    const op: Record<string, unknown> = {
      operationId: r.operationId,
      summary: r.summary,
      tags: [r.tag],
      parameters: params,
      responses,
      ...(r.permission ? { 'x-permission': r.permission } : {}),
      security: securityOf(r),
    };
    if (r.request?.body) {
      const media: Record<string, unknown> = { schema: schemaOf(r.request.body) };
      if (r.request.example !== undefined) media.example = r.request.example;
      op.requestBody = { required: true, content: { 'application/json': media } };
    } else if (r.rawBody) {
      op.requestBody = { required: true, content: Object.fromEntries((r.consumes ?? ['application/octet-stream']).map((m) => [m, binary(m)])) };
    }
    (paths[r.path] ??= {})[r.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Speech and compliance gateway',
      version: SERVICE_VERSION,
      description:
        'REST compatibility layer of the gateway. Text-to-speech under /api/v1 (and OpenAI-compatible under /v1/audio/speech, /v1/models), the compliance platform under /v1 (detailed) and /api (short listing). The same operations exist over GraphQL (/graphql) and tRPC (/trpc). Answers may gain fields over time; clients ignore fields they do not know.',
      license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
    },
    servers: [{ url: '/' }],
    tags: [...new Set([...routes.map((r) => r.tag), 'webhooks'])].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name })),
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' } },
      schemas: {
        TtsError: schemaOf(TtsError),
        IntegrationError: schemaOf(IntegrationError),
        DashboardError: schemaOf(DashboardError),
        OpenAiError: schemaOf(OpenAiError),
        WebhookEvent: schemaOf(WebhookEvent),
        SpeechGenerationWebhook: schemaOf(GenerationWebhookBody),
      },
    },
    paths,
    webhooks: Object.fromEntries([
      [
        'speechGenerationFinished',
        {
          post: {
            operationId: 'webhook_speech_generation_finished',
            summary:
              "Delivered to the `webhook.url` of an asynchronous generation (`POST /api/v1/generate` with `webhook`) once it is done: the audio, or `error`. Sent with the request's `webhook.headers` and signed like every webhook, with `webhook.secret` (or the `webhookSecret` of the 202 answer)",
            tags: ['webhooks'],
            security: [],
            parameters: WEBHOOK_HEADERS,
            requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/SpeechGenerationWebhook' } } } },
            responses: { '2XX': { description: 'Delivered; any other answer (or none within the timeout) is retried with backoff' } },
          },
        },
      ],
      ...COMPLIANCE_EVENT_TYPES.map((type) => [
        type,
        {
          post: {
            operationId: `webhook_${type.replace('.', '_')}`,
            summary: `Delivered to a registered webhook for \`${type}\` (or \`*\`)`,
            description: `Sent only while the webhook's owner key is valid and may read it (${EVENT_READ_PERMISSIONS[type].join(' or ')}${type === 'report.completed' ? ', and requested the report' : ''}); otherwise the delivery is recorded as \`skipped\` with the reason.`,
            tags: ['webhooks'],
            // Deliveries carry no key: the receiver authenticates them by the signature header.
            security: [],
            parameters: WEBHOOK_HEADERS,
            requestBody: {
              required: true,
              content: {
                'application/json': { schema: { allOf: [{ $ref: '#/components/schemas/WebhookEvent' }, { properties: { type: { const: type } } }] } },
              },
            },
            responses: { '2XX': { description: 'Delivered; any other answer (or none within the timeout) is retried with backoff' } },
          },
        },
      ]),
    ]),
  };
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  tts: 'Text to speech: generation, audio files, estimates, hashes and the cache',
  health: 'Liveness, readiness and service health (no key needed)',
  auth: 'API keys: issue and revoke',
  requirements: 'Compliance requirements: create, read, update, validate, in batches too',
  compliance: 'Scores and status per framework',
  assurance: 'Traceability and the release gate for delivery pipelines',
  'tts-admin': 'Cache administration (tts:admin)',
  frameworks: 'The catalogue of supported frameworks and their clauses',
  audits: 'Audit findings and their evidence',
  'short-listing': 'The shorter /api listing of the same compliance operations',
  reports: 'Compliance reports (PDF, CSV, JSON), generated in the background',
  dashboard: 'Dashboard metrics, status, history and reports',
  webhooks: 'Webhook registrations, their deliveries, and the events they receive',
  openai: 'OpenAI-compatible speech: the openai SDKs (`baseURL` …/v1) generate through the same cache, budgets and statistics as /api/v1/generate',
  'audit-trail': 'The append-only, hash-chained record of every change, and its verification',
};

/** The body every webhook delivery POSTs (design card, Webhooks). */
const WebhookEvent = z.object({
  id: z.string().describe('Event id; the same on every retry of one delivery, for deduplication'),
  type: z.enum(COMPLIANCE_EVENT_TYPES),
  data: z.record(z.string(), z.unknown()),
  createdAt: z.string().meta({ format: 'date-time' }),
});

const WEBHOOK_HEADERS = [
  {
    name: 'x-service-signature',
    in: 'header',
    required: true,
    description:
      '`t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`: recompute over the raw body with the secret from registration, compare in constant time; refusing a `t` more than a few minutes old stops replays',
    schema: { type: 'string', pattern: '^t=\\d+,v1=[0-9a-f]{64}$' },
  },
  { name: 'webhook-id', in: 'header', required: true, description: 'The delivery id (stable across retries)', schema: { type: 'string' } },
  { name: 'webhook-timestamp', in: 'header', required: true, description: 'Unix seconds when this attempt was signed', schema: { type: 'string' } },
];

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
