import type { EntityManager } from '@mikro-orm/postgresql';
import type { UrlPolicy } from '../../webhooks/ssrf';
import { postSigned } from '../../webhooks/signed-post';
import { Poller } from '../../jobs/poller';
import { Webhook } from './webhook.entity';
import { principalOfKeyId } from '../../auth/auth.service';
import { eventFor, eventRefusal } from '../event-access';
import { clock } from '../../clock';
import type { DomainEvent } from '../../events/bus';
import { DeliveryGate, notAmong, receiverOf, type GatePass } from '../../webhooks/delivery-gate';

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
  // Slots are sockets, not CPU: enough that receivers and owners at their caps (DeliveryGate) leave room for everyone else.
  concurrency: 8,
};

/** Events expanded into deliveries per statement: one event, up to its fan-out (the per-key cap, or more for the admin), keeps each statement short on the single-threaded embedded database. */
const EXPAND_EVENTS_PER_PAGE = 1;

interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  event_id: string;
  type: string;
  payload: Record<string, unknown> | string | null;
  attempts: number;
  owner_key_id: string | null;
  receiver: string | null;
  url: string;
  /** The place taken in the gate for this delivery (set right after the claim). */
  pass?: GatePass;
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
  /** Fair shares per receiver and owner, shared with speech callbacks (domain/webhooks/delivery-gate.ts). */
  readonly gate: DeliveryGate;
  private lastExpansion = 0;
  private running = false;
  /** The expansion under way (one at a time), beside the claims: sending never waits for it. */
  private expanding: Promise<void> | null = null;
  private expandAgain = false;

  constructor(
    private readonly rootEm: EntityManager,
    private readonly deps: {
      instanceId: string;
      policy: UrlPolicy;
      gate?: DeliveryGate;
      onOutcome?: (o: DeliveryOutcome) => void;
      onError?: (err: unknown) => void;
    },
    settings: Partial<DeliverySettings> = {},
  ) {
    this.settings = { ...DEFAULT_DELIVERY_SETTINGS, ...settings };
    this.gate = deps.gate ?? new DeliveryGate({ timeoutMs: this.settings.timeoutMs });
    this.poller = new Poller({
      intervalMs: () => this.settings.pollIntervalMs,
      concurrency: () => this.settings.concurrency,
      claim: () => this.claim(),
      // The gate's place is given back whatever happens (done() after settle() does nothing).
      run: (delivery) => this.deliver(delivery).finally(() => delivery.pass?.done('none')),
      // Receivers or owners held back (a circuit open, a cap reached) are let through again in time, not on a kick.
      mayStretch: () => this.gate.blockedReceivers().length === 0 && this.gate.blockedOwners().length === 0,
      onError: (err) => this.deps.onError?.(err),
    });
  }

  start() {
    this.running = true;
    this.poller.start();
    this.expandSoon();
  }

  async stop() {
    this.running = false;
    await Promise.all([this.poller.stop(), this.expanding]);
  }

  kick() {
    this.expandSoon();
    this.poller.kick();
  }

  /**
   * Expands page after page until none is left, kicking the claims after each page that made
   * deliveries. Asked again while expanding (an event committed meanwhile, which the running
   * statement may not see), it expands once more when done.
   */
  private expandSoon() {
    if (!this.running) return;
    if (this.expanding) {
      this.expandAgain = true;
      return;
    }
    this.lastExpansion = clock.nowMs();
    this.expanding = (async () => {
      try {
        let expanded = 0;
        do {
          this.expandAgain = false;
          while (this.running && (expanded = await this.expandEvents()) >= EXPAND_EVENTS_PER_PAGE) this.poller.kick();
          // Nothing expanded: no new delivery to claim (a kick would also undo the idle poller's stretch).
          if (expanded > 0) this.poller.kick();
        } while (this.expandAgain && this.running);
      } catch (err) {
        this.deps.onError?.(err);
      } finally {
        this.expanding = null;
      }
    })();
  }

  /**
   * Expands committed outbox events into one pending delivery per recipient webhook still active, in
   * SQL, a page of events per statement: no payload and no row passes through this process. The
   * delivery id is derived from the event and the webhook, so a page expanded twice (a crash between
   * the insert and the mark, on another instance) adds nothing.
   */
  async expandEvents(maxPages = 1): Promise<number> {
    const conn = this.rootEm.getConnection();
    let expanded = 0;
    for (let page = 0; page < maxPages; page++) {
      const rows = await conn.execute<{ id: string }[]>(
        `with ev as (
           select id, type, excluded, created_at from webhook_events where expanded_at is null order by created_at limit ${EXPAND_EVENTS_PER_PAGE} for update skip locked
         ), ins as (
           insert into webhook_deliveries (id, webhook_id, event_id, type, status, attempts, next_attempt_at, created_at)
           select 'dlv_' || substr(md5(ev.id || ':' || w.id), 1, 28), w.id, ev.id, ev.type, 'pending', 0, ?, ?
             from ev join webhooks w
               on w.active and w.created_at <= ev.created_at
              and (w.events @> jsonb_build_array(ev.type) or w.events @> '["*"]'::jsonb)
              and not (ev.excluded @> jsonb_build_array(w.id))
           on conflict (id) do nothing
         )
         update webhook_events set expanded_at = ? where id in (select id from ev) returning id`,
        [clock.now(), clock.now(), clock.now()],
        'all',
      );
      expanded += rows.length;
      if (rows.length < EXPAND_EVENTS_PER_PAGE) break;
    }
    return expanded;
  }

  private async claim(): Promise<ClaimedDelivery | null> {
    // Events committed by another instance are found by polling.
    if (clock.nowMs() - this.lastExpansion >= this.settings.pollIntervalMs) this.expandSoon();
    // Receivers and owners at their share of the slots (or behind an open circuit) wait; everyone else goes first.
    const receivers = notAmong(`coalesce(w2.receiver, '')`, this.gate.blockedReceivers());
    const owners = notAmong(
      `coalesce(w2.owner_key_id, '')`,
      this.gate
        .blockedOwners()
        .filter((o) => o.startsWith('key:'))
        .map((o) => o.slice(4)),
    );
    const rows = await this.rootEm.getConnection().execute<ClaimedDelivery[]>(
      `update webhook_deliveries d
          set locked_by = ?, locked_until = ?, attempts = d.attempts + 1
         from webhooks w
        where d.id = (
          select d2.id from webhook_deliveries d2 join webhooks w2 on w2.id = d2.webhook_id
           where d2.status = 'pending' and d2.next_attempt_at <= ? and (d2.locked_until is null or d2.locked_until < ?)${receivers.sql}${owners.sql}
           order by d2.next_attempt_at
           for update of d2 skip locked
           limit 1)
          and w.id = d.webhook_id
        returning d.id, d.webhook_id, d.event_id, d.type, d.payload, d.attempts, w.owner_key_id, w.receiver, w.url`,
      [this.deps.instanceId, new Date(clock.nowMs() + this.settings.leaseMs), clock.now(), clock.now(), ...receivers.params, ...owners.params],
      'all',
    );
    const d = rows[0];
    if (!d) return null;
    const pass = this.gate.enter(`key:${d.owner_key_id ?? ''}`, d.receiver ?? receiverOf(d.url));
    if (!pass) {
      // Taken meanwhile by a speech callback to the same receiver: back, uncounted, for a later claim.
      await this.release(d);
      return null;
    }
    d.pass = pass;
    return d;
  }

  private async release(d: ClaimedDelivery) {
    await this.rootEm
      .getConnection()
      .execute(
        `update webhook_deliveries set attempts = greatest(attempts - 1, 0), locked_by = null, locked_until = null where id = ? and locked_by = ?`,
        [d.id, this.deps.instanceId],
        'run',
      );
  }

  private async deliver(d: ClaimedDelivery) {
    const em = this.rootEm.fork() as EntityManager;
    const hook = await em.findOne(Webhook, d.webhook_id);
    if (!hook || !hook.active) return this.settle(d, { outcome: 'failed', error: 'webhook deleted' });
    const payload = await this.payloadOf(d);
    if (!payload) return this.settle(d, { outcome: 'failed', error: 'event payload missing' });
    // A webhook sends on its owner's behalf: only while the owner key is valid, and only what it may read now.
    const owner = await principalOfKeyId(em, hook.ownerKeyId);
    if (!owner.principal) return this.settle(d, { outcome: 'skipped', error: `owner key ${owner.reason === 'unknown key' ? 'unknown' : owner.reason}` });
    const refusal = eventRefusal(owner.principal, payload);
    if (refusal) return this.settle(d, { outcome: 'skipped', error: `owner key ${refusal}` });
    const shown = eventFor(owner.principal, payload)!;
    let result: DeliveryOutcome;
    try {
      const status = await this.post(hook, d, JSON.stringify(shown));
      result =
        status >= 200 && status < 300
          ? { outcome: 'delivered', statusCode: status }
          : { outcome: 'retry', statusCode: status, error: `receiver answered ${status}` };
    } catch (err) {
      result = { outcome: 'retry', error: String(err instanceof Error ? err.message : err).slice(0, 500) };
    }
    if (result.outcome === 'retry' && d.attempts >= this.settings.maxAttempts) result = { ...result, outcome: 'failed' };
    await this.settle(d, result);
  }

  /** The event's payload (stored once per event), or the delivery's own copy on rows written before that. */
  private async payloadOf(d: ClaimedDelivery): Promise<DomainEvent | null> {
    // The stored payload is the DomainEvent the outbox wrote (jsonb, or text from a driver that returns it so).
    const stored = (p: unknown) => (typeof p === 'string' ? JSON.parse(p) : p) as DomainEvent;
    if (d.payload !== null && d.payload !== undefined) return stored(d.payload);
    const [row] = await this.rootEm.getConnection().execute<{ payload: unknown }[]>(`select payload from webhook_events where id = ?`, [d.event_id], 'all');
    if (!row) return null;
    return stored(row.payload);
  }

  /** Records the outcome, only while this instance still holds the lease. */
  private async settle(d: ClaimedDelivery, r: DeliveryOutcome) {
    d.pass?.done(
      r.outcome === 'delivered' ? 'ok' : r.outcome === 'skipped' || r.error === 'webhook deleted' || r.error === 'event payload missing' ? 'none' : 'failed',
    );
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
      this.poller.kickAfter(delay);
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
      // Shorter once the receiver has failed repeatedly (DeliveryGate).
      timeoutMs: d.pass?.timeoutMs ?? this.settings.timeoutMs,
      userAgent: 'compliance-gateway-webhooks/1',
    });
  }
}
