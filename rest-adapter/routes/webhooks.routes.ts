import { z } from 'zod';
import { CreateWebhookInput } from '../../domain/compliance/webhooks/webhook.service';
import { DELIVERY_STATUSES } from '../../domain/compliance/webhooks/webhook.entity';
import { defineRoutes, errorResponse, routesWith } from '../route';
import * as W from '../schemas/webhooks';

const route = routesWith({ envelope: 'integration', limiter: 'plan', tag: 'webhooks', permission: 'manage:webhooks' } as const);

/** Webhook registration (design.md): events are the dotted compliance event types, or `*`. */
export const webhookRoutes = defineRoutes([
  route({
    method: 'post',
    path: '/v1/webhooks',
    operationId: 'createWebhook',
    response: W.RegisteredWebhook,
    summary: 'Register a webhook; the signing secret (generated when not given) is returned only here',
    request: {
      body: CreateWebhookInput,
      example: { url: 'https://hooks.example.com/compliance', events: ['requirement.created', 'compliance.score_changed'] },
    },
    status: 201,
    responses: {
      400: errorResponse('Invalid URL (scheme, private network) or event type'),
      409: errorResponse('WEBHOOK_LIMIT_EXCEEDED: the key already has as many active webhooks as it may (WEBHOOK_MAX_PER_KEY, default 25)'),
    },
    handle: ({ ctx, services, body }) => services.webhooks.create(ctx, body),
  }),
  route({
    method: 'get',
    path: '/v1/webhooks',
    operationId: 'listWebhooks',
    response: W.WebhookList,
    summary: 'Registered webhooks (without secrets)',
    handle: ({ ctx, services }) => services.webhooks.list(ctx),
  }),
  route({
    method: 'delete',
    path: '/v1/webhooks/{id}',
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook; its pending deliveries are cancelled',
    status: 204,
    raw: true,
    responses: { 404: errorResponse('No such webhook') },
    handle: async ({ ctx, services, params, res }) => {
      await services.webhooks.remove(ctx, params.id);
      res.status(204).end();
    },
  }),
  route({
    method: 'get',
    path: '/v1/webhooks/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    response: W.DeliveryList,
    summary: 'Recent deliveries of a webhook, newest first, with attempts and last outcome',
    request: { query: z.object({ limit: z.coerce.number().int().min(1).max(200).optional(), status: z.enum(DELIVERY_STATUSES).optional() }) },
    responses: { 404: errorResponse('No such webhook') },
    handle: ({ ctx, services, params, query }) => services.webhooks.deliveries(ctx, params.id, query),
  }),
]);
