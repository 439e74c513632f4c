import { z } from 'zod';
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
  status: z.string(),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: Instant.nullable(),
  deliveredAt: Instant.nullable(),
  createdAt: Instant,
});
export const DeliveryList = list(Delivery);
