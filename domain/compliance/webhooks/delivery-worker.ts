import type { EntityManager } from '@mikro-orm/postgresql';
import type { UrlPolicy } from '../../webhooks/ssrf';
import { postSigned } from '../../webhooks/signed-post';
import { Poller } from '../../jobs/poller';
import { Webhook } from './webhook.entity';
import { principalOfKeyId } from '../../auth/auth.service';
import { eventFor, eventRefusal } from '../event-access';
import { clock } from '../../clock';

export interface DeliverySettings {
  /** First retry delay; doubles per attempt (with jitter) up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Attempts before a delivery is given up as failed. */
  maxAttempts: number;
  timeoutMs: number;
  pollIntervalMs: number;
  leaseMs: number;
  concurrency: number;
}

export const DEFAULT_DELIVERY_SETTINGS: DeliverySettings = {
  baseDelayMs: 1000,
  maxDelayMs: 30 * 60_000,
  maxAttempts: 15,
  timeoutMs: 10_000,
  pollIntervalMs: 500,
  leaseMs: 30_000,
  concurrency: 4,
};

interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  event_id: string;
  type: string;
  payload: Record<string, unknown> | string;
  attempts: number;
}


/** Delay before the next attempt: exponential, capped, with jitter so retries of many receivers spread out. */
export function retryDelayMs(attempt: number, s: Pick<DeliverySettings, 'baseDelayMs' | 'maxDelayMs'>, random = Math.random): number {
  const exp = Math.min(s.maxDelayMs, s.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp * (0.75 + 0.5 * random()));
}

export interface DeliveryOutcome {
  outcome: 'delivered' | 'retry' | 'failed' | 'skipped';
  statusCode?: number;
  error?: string;
}

/**
 * Sends the webhook outbox. Each pending delivery that is due is claimed with
 * `FOR UPDATE SKIP LOCKED` under a lease (so several instances share the work and a crashed
 * sender's deliveries are picked up again), POSTed with its signature, then marked delivered or
 * rescheduled with backoff, and failed after the last attempt.
 */
export class DeliveryWorker {
  readonly settings: DeliverySettings;
  private readonly poller: Poller<ClaimedDelivery>;

  constructor(
    private readonly rootEm: EntityManager,
    private readonly deps: { instanceId: string; policy: UrlPolicy; onOutcome?: (o: DeliveryOutcome) => void; onError?: (err: unknown) => void },
    settings: Partial<DeliverySettings> = {},
  ) {
    this.settings = { ...DEFAULT_DELIVERY_SETTINGS, ...settings };
    this.poller = new Poller({
      intervalMs: () => this.settings.pollIntervalMs,
      concurrency: () => this.settings.concurrency,
      claim: () => this.claim(),
      run: (delivery) => this.deliver(delivery),
      onError: (err) => this.deps.onError?.(err),
    });
  }

  start() {
    this.poller.start();
  }

  async stop() {
    await this.poller.stop();
  }

  kick() {
    this.poller.kick();
  }

  private async claim(): Promise<ClaimedDelivery | null> {
    const rows = await this.rootEm.getConnection().execute<ClaimedDelivery[]>(
      `update webhook_deliveries
          set locked_by = ?, locked_until = ?, attempts = attempts + 1
        where id = (
          select id from webhook_deliveries
           where status = 'pending' and next_attempt_at <= ? and (locked_until is null or locked_until < ?)
           order by next_attempt_at
           for update skip locked
           limit 1)
        returning id, webhook_id, event_id, type, payload, attempts`,
      [this.deps.instanceId, new Date(clock.nowMs() + this.settings.leaseMs), clock.now(), clock.now()],
      'all',
    );
    return rows[0] ?? null;
  }

  private async deliver(d: ClaimedDelivery) {
    const em = this.rootEm.fork() as EntityManager;
    const hook = await em.findOne(Webhook, d.webhook_id);
    if (!hook || !hook.active) return this.settle(d, { outcome: 'failed', error: 'webhook deleted' });
    const payload = typeof d.payload === 'string' ? JSON.parse(d.payload) : d.payload;
    // A webhook sends on its owner's behalf: only while the owner key is valid, and only what it may read now.
    const owner = await principalOfKeyId(em, hook.ownerKeyId);
    if (!owner.principal) return this.settle(d, { outcome: 'skipped', error: `owner key ${owner.reason === 'unknown key' ? 'unknown' : owner.reason}` });
    const refusal = eventRefusal(owner.principal, payload);
    if (refusal) return this.settle(d, { outcome: 'skipped', error: `owner key ${refusal}` });
    const shown = eventFor(owner.principal, payload)!;
    let result: DeliveryOutcome;
    try {
      const status = await this.post(hook, d, JSON.stringify(shown));
      result = status >= 200 && status < 300 ? { outcome: 'delivered', statusCode: status } : { outcome: 'retry', statusCode: status, error: `receiver answered ${status}` };
    } catch (err: any) {
      result = { outcome: 'retry', error: String(err?.message ?? err).slice(0, 500) };
    }
    if (result.outcome === 'retry' && d.attempts >= this.settings.maxAttempts) result = { ...result, outcome: 'failed' };
    await this.settle(d, result);
  }

  /** Records the outcome, only while this instance still holds the lease. */
  private async settle(d: ClaimedDelivery, r: DeliveryOutcome) {
    const conn = this.rootEm.getConnection();
    const common = [r.statusCode ?? null, r.error ?? null, d.id, this.deps.instanceId];
    if (r.outcome === 'delivered') {
      await conn.execute(
        `update webhook_deliveries set status = 'delivered', delivered_at = ?, last_status_code = ?, last_error = ?, locked_by = null, locked_until = null
          where id = ? and locked_by = ? and status = 'pending'`,
        [clock.now(), ...common],
        'run',
      );
    } else if (r.outcome === 'skipped') {
      // Claimed but never sent: the attempt the claim counted is given back.
      await conn.execute(
        `update webhook_deliveries set status = 'skipped', attempts = greatest(attempts - 1, 0), last_status_code = ?, last_error = ?, locked_by = null, locked_until = null
          where id = ? and locked_by = ? and status = 'pending'`,
        common,
        'run',
      );
    } else if (r.outcome === 'failed') {
      await conn.execute(
        `update webhook_deliveries set status = 'failed', last_status_code = ?, last_error = ?, locked_by = null, locked_until = null
          where id = ? and locked_by = ? and status = 'pending'`,
        common,
        'run',
      );
    } else {
      const delay = retryDelayMs(d.attempts, this.settings);
      await conn.execute(
        `update webhook_deliveries set next_attempt_at = ?, last_status_code = ?, last_error = ?, locked_by = null, locked_until = null
          where id = ? and locked_by = ? and status = 'pending'`,
        [new Date(clock.nowMs() + delay), ...common],
        'run',
      );
    }
    this.deps.onOutcome?.(r);
  }

  /** One POST; resolves with the status code (domain/webhooks: the same for every product). */
  private post(hook: Webhook, d: ClaimedDelivery, body: string): Promise<number> {
    return postSigned({
      url: hook.url,
      secret: hook.secret,
      deliveryId: d.event_id,
      body,
      policy: this.deps.policy,
      timeoutMs: this.settings.timeoutMs,
      userAgent: 'compliance-gateway-webhooks/1',
    });
  }
}
