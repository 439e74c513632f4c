import { actorOf, type AuditTrail } from '../../audit/audit-trail.service';
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { DomainContext } from '../../context';
import { DomainError, notFound } from '../../errors';
import type { DomainEvent } from '../../events/bus';
import { newId } from '../../ids';
import { parseInput } from '../../validation';
import { COMPLIANCE_EVENT_TYPES, type OutboxWriter } from '../events';
import { assertWebhookUrl, type UrlPolicy } from '../../webhooks/ssrf';
import { DELIVERY_STATUSES, Webhook, WebhookDelivery, WebhookEvent } from './webhook.entity';
import { receiverOf } from '../../webhooks/delivery-gate';
import { ApiKey } from '../../auth/api-key.entity';
import { ADMIN_PRINCIPAL_ID, AuthService } from '../../auth/auth.service';
import { isPermission } from '../../auth/permissions';
import { requirePermission, type Principal } from '../../auth/principal';
import { eventRefusal } from '../event-access';
import { clock } from '../../clock';
import type { RowSink } from '../../database/row-batch';

/** The active webhooks and their owners as the fan-out sees them. */
interface Subscribers {
  hooks: Webhook[];
  owners: Map<string, Principal>;
}

/** Active webhooks one key may have unless configured (`WEBHOOK_MAX_PER_KEY`). */
export const DEFAULT_WEBHOOKS_PER_KEY = 25;

/** `*` subscribes to every event type, including ones added later. */
export const WEBHOOK_EVENT_NAMES = [...COMPLIANCE_EVENT_TYPES, '*'] as const;

export const CreateWebhookInput = z
  .object({
    url: z.string().trim().min(1).max(2048),
    events: z
      .array(z.enum(WEBHOOK_EVENT_NAMES as unknown as [string, ...string[]], { error: `each event must be one of: ${WEBHOOK_EVENT_NAMES.join(', ')}` }))
      .min(1)
      .max(WEBHOOK_EVENT_NAMES.length),
    secret: z.string().min(16, 'must be at least 16 characters').max(200).optional(),
  })
  .strict();
export type CreateWebhookInput = z.input<typeof CreateWebhookInput>;

/** A webhook's delivery log: the newest first, at most `limit`, of one status if given. */
export const DeliveriesQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).default(50), status: z.enum(DELIVERY_STATUSES).optional() });

export interface WebhookView {
  id: string;
  url: string;
  events: string[];
  createdAt: string;
}

export interface DeliveryView {
  id: string;
  webhookId: string;
  eventId: string;
  type: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
}

const webhookView = (w: Webhook): WebhookView => ({ id: w.id, url: w.url, events: [...w.events], createdAt: w.createdAt.toISOString() });

const deliveryView = (d: WebhookDelivery): DeliveryView => ({
  id: d.id,
  webhookId: d.webhookId,
  eventId: d.eventId,
  type: d.type,
  status: d.status,
  attempts: d.attempts,
  lastStatusCode: d.lastStatusCode ?? null,
  lastError: d.lastError ?? null,
  nextAttemptAt: d.status === 'pending' ? d.nextAttemptAt.toISOString() : null,
  deliveredAt: d.deliveredAt?.toISOString() ?? null,
  createdAt: d.createdAt.toISOString(),
});

/**
 * Webhook registrations and the outbox. Keys with `manage:webhooks` see the webhooks they
 * registered; the admin key sees all. The secret is returned once, at registration.
 */
export class WebhookService implements OutboxWriter {
  /** Called after an outbox write commits may be worth a look; the worker also polls. */
  onEnqueued?: () => void;

  /** The subscribers as read at a version: the version moves on any change to webhooks or their owners' keys. */
  private kept: { version: string; read: Promise<Subscribers> } | null = null;
  /** Units of work that read the version and found it moved: what they read is kept under it. */
  private readonly readAtVersion = new WeakMap<EntityManager, string>();

  constructor(
    private readonly policy: UrlPolicy,
    private readonly auditTrail?: AuditTrail,
    /** Active webhooks one key may have (`WEBHOOK_MAX_PER_KEY`): each multiplies every event's fan-out. */
    readonly settings: { maxPerKey: number } = { maxPerKey: DEFAULT_WEBHOOKS_PER_KEY },
  ) {}

  /**
   * The subscribers' version (migration 20261125200000), for a change to read inside its
   * transaction alongside a statement it sends anyway, then hand to `atVersion`.
   */
  readonly versionQuery = 'select "version" from "webhook_subscribers_version" where "id" = 1';

  /**
   * The subscribers' version as `em`'s transaction read it: when the kept subscribers are of that
   * version, `enqueue` in `em` uses them and sends no statement; otherwise it reads them in `em` and
   * they are kept under that version. The version was read in the transaction, after the change
   * began, so a webhook or key change committed before it is seen, on whichever instance it was made;
   * the rows read after it are that version or newer, never older than their label.
   */
  atVersion(em: EntityManager, version: unknown): void {
    if (version === null || version === undefined) return;
    const v = String(version);
    const kept = this.kept;
    if (kept?.version === v) this.subscribersByUnitOfWork.set(em, kept.read);
    else this.readAtVersion.set(em, v);
  }

  async create(ctx: DomainContext, raw: unknown): Promise<WebhookView & { secret: string }> {
    const principal = requirePermission(ctx, 'manage:webhooks');
    const input = parseInput(CreateWebhookInput, raw);
    const url = await assertWebhookUrl(input.url, this.policy);
    const secret = input.secret ?? `whsec_${randomBytes(32).toString('base64url')}`;
    const row = await ctx.em.transactional(async (tx) => {
      await this.assertUnderCap(tx as EntityManager, principal.keyId);
      const created = tx.create(Webhook, {
        id: newId('whk'),
        url: url.toString(),
        receiver: receiverOf(url.toString()),
        events: [...new Set(input.events)],
        secret,
        ownerKeyId: principal.keyId,
        active: true,
        createdAt: clock.now(),
      });
      // The secret stays out of the trail.
      this.auditTrail?.record(tx as EntityManager, actorOf(ctx), { action: 'webhook.create', entityType: 'webhook', entityId: created.id }, null, {
        url: created.url,
        events: created.events,
        ownerKeyId: created.ownerKeyId,
        active: true,
      });
      return created;
    });
    return { ...webhookView(row), secret };
  }

  /**
   * Refuses a key's webhook beyond the cap (issue 37: 990 webhooks of one key turned one batch into
   * 99,000 deliveries). Keys registering at once are serialised on a transaction lock of the key, so
   * the count cannot be passed by racing.
   */
  private async assertUnderCap(tx: EntityManager, keyId: string): Promise<void> {
    const conn = tx.getConnection();
    const trx = tx.getTransactionContext();
    await conn.execute(`select pg_advisory_xact_lock(hashtext(?))`, [`webhooks:${keyId}`], 'all', trx);
    const [{ n }] = await conn.execute<{ n: number | string }[]>(`select count(*) as n from webhooks where owner_key_id = ? and active`, [keyId], 'all', trx);
    const max = this.settings.maxPerKey;
    if (Number(n) >= max) {
      throw new DomainError(
        'WEBHOOK_LIMIT_EXCEEDED',
        `This key already has ${Number(n)} active webhooks, the most one key may have (${max}); delete one first`,
        {
          details: { limit: max, active: Number(n) },
          fields: [{ field: 'url', message: `at most ${max} active webhooks per key` }],
        },
      );
    }
  }

  async list(ctx: DomainContext): Promise<{ data: WebhookView[] }> {
    const principal = requirePermission(ctx, 'manage:webhooks');
    const rows = await ctx.em.find(
      Webhook,
      { active: true, ...(principal.isAdmin ? {} : { ownerKeyId: principal.keyId }) },
      { orderBy: { createdAt: 'asc', id: 'asc' } },
    );
    return { data: rows.map(webhookView) };
  }

  /** Deactivates the webhook and cancels what it still had to send. */
  async remove(ctx: DomainContext, id: string): Promise<{ deleted: true; id: string }> {
    const row = await this.owned(ctx, id);
    await ctx.em.transactional(async (tx) => {
      await tx.nativeUpdate(Webhook, { id: row.id }, { active: false });
      this.auditTrail?.record(
        tx as EntityManager,
        actorOf(ctx),
        { action: 'webhook.delete', entityType: 'webhook', entityId: row.id },
        { active: true },
        { active: false },
      );
      await tx.nativeUpdate(WebhookDelivery, { webhookId: row.id, status: 'pending' }, { status: 'failed', lastError: 'webhook deleted' });
    });
    return { deleted: true, id: row.id };
  }

  async deliveries(ctx: DomainContext, id: string, raw: { limit?: unknown; status?: unknown } = {}): Promise<{ data: DeliveryView[] }> {
    const row = await this.owned(ctx, id);
    const q = parseInput(DeliveriesQuery, { limit: raw.limit ?? undefined, status: raw.status ?? undefined });
    const rows = await ctx.em.find(
      WebhookDelivery,
      { webhookId: row.id, ...(q.status ? { status: q.status } : {}) },
      { orderBy: { createdAt: 'desc', id: 'desc' }, limit: q.limit },
    );
    return { data: rows.map(deliveryView) };
  }

  /**
   * OutboxWriter: the event once, with the active webhooks that want it and whose owner key may read
   * it (events it could never read are not queued for them at all); committed by the caller. The
   * delivery worker expands it into one delivery per webhook after the commit (DeliveryWorker
   * .expandEvents), so the change holds one payload, not one per webhook. Whether the owner is still
   * valid, and what it may read then, is checked again when each delivery is sent.
   */
  async enqueue(em: EntityManager, event: DomainEvent): Promise<void> {
    const outbox = await this.outboxOf(em, event);
    if (!outbox) return;
    em.create(WebhookEvent, outbox);
    // The row is only visible once the caller commits; nudge the worker shortly after.
    setTimeout(() => this.onEnqueued?.(), 50).unref();
  }

  /** `enqueue`, with the event handed to `sink` as a row of `webhook_events` (the caller inserts it in `em`'s transaction). */
  async enqueueInto(sink: RowSink, em: EntityManager, event: DomainEvent): Promise<void> {
    const outbox = await this.outboxOf(em, event);
    if (!outbox) return;
    sink.add('webhook_events', {
      id: outbox.id,
      type: outbox.type,
      payload: JSON.stringify(outbox.payload),
      excluded: JSON.stringify(outbox.excluded),
      created_at: outbox.createdAt,
    });
    setTimeout(() => this.onEnqueued?.(), 50).unref();
  }

  private async outboxOf(em: EntityManager, event: DomainEvent) {
    const { hooks: active, owners } = await this.subscribersIn(em);
    let recipients = 0;
    const excluded: string[] = [];
    for (const hook of active) {
      if (!hook.events.includes('*') && !hook.events.includes(event.type)) continue;
      const owner = hook.ownerKeyId === ADMIN_PRINCIPAL_ID ? AuthService.adminPrincipal() : hook.ownerKeyId ? owners.get(hook.ownerKeyId) : undefined;
      // An owner that is gone still gets the row, so the skip (and why) shows in its deliveries.
      if (owner && eventRefusal(owner, event)) excluded.push(hook.id);
      else recipients++;
    }
    if (!recipients) return null;
    return {
      id: event.id,
      type: event.type,
      payload: { id: event.id, type: event.type, data: event.data, createdAt: event.createdAt },
      excluded,
      createdAt: clock.now(),
    };
  }

  /**
   * The active webhooks and their owners, read once per unit of work (a change stages two to four
   * events in one transaction), or the kept ones when `atVersion` found them current.
   */
  private subscribersIn(em: EntityManager): Promise<Subscribers> {
    let read = this.subscribersByUnitOfWork.get(em);
    if (!read) {
      read = this.readSubscribers(em);
      this.subscribersByUnitOfWork.set(em, read);
      const version = this.readAtVersion.get(em);
      const kept = version === undefined ? null : (this.kept = { version, read });
      // A failed read is not kept: the transaction fails with it, and a retry reads again.
      read.catch(() => {
        this.subscribersByUnitOfWork.delete(em);
        if (kept && this.kept === kept) this.kept = null;
      });
    }
    return read;
  }

  private async readSubscribers(em: EntityManager): Promise<Subscribers> {
    const hooks = await em.find(Webhook, { active: true });
    const ownerIds = [...new Set(hooks.map((h) => h.ownerKeyId).filter((id): id is string => !!id && id !== ADMIN_PRINCIPAL_ID))];
    const owners = new Map<string, Principal>(
      (ownerIds.length ? await em.find(ApiKey, { id: { $in: ownerIds } }) : []).map((k) => [
        k.id,
        { keyId: k.id, name: k.name, permissions: new Set(k.permissions.filter(isPermission)), isAdmin: k.isAdmin, plan: k.plan },
      ]),
    );
    return { hooks, owners };
  }

  private readonly subscribersByUnitOfWork = new WeakMap<EntityManager, Promise<Subscribers>>();

  private async owned(ctx: DomainContext, id: string): Promise<Webhook> {
    const principal = requirePermission(ctx, 'manage:webhooks');
    const row = typeof id === 'string' && id.length <= 40 ? await ctx.em.findOne(Webhook, { id, active: true }) : null;
    if (!row || (!principal.isAdmin && row.ownerKeyId !== principal.keyId)) throw notFound('Webhook', String(id).slice(0, 60));
    return row;
  }
}
