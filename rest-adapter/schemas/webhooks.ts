import { z } from 'zod';
import { DELIVERY_STATUSES } from '../../domain/compliance/webhooks/webhook.entity';
import { Instant, list } from './common';

export const Webhook = z.object({ id: z.string(), url: z.string(), events: z.array(z.string()), createdAt: Instant });
/** The signing secret is shown once, when the webhook is registered. */
export const RegisteredWebhook = Webhook.extend({ secret: z.string() });
export const WebhookList = list(Webhook);
export const Delivery = z.object({
  id: z.string(),
  webhookId: z.string(),
  eventId: z.string(),
  type: z.string(),
  status: z.enum(DELIVERY_STATUSES).describe('skipped: never sent because the owner key was revoked or expired, or may not read the event; lastError says why'),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable().describe('the last failure, or why the delivery was skipped'),
  nextAttemptAt: Instant.nullable(),
  deliveredAt: Instant.nullable(),
  createdAt: Instant,
});
export const DeliveryList = list(Delivery);
