import { clock } from '../clock';

/**
 * Fair scheduling of outgoing webhooks, shared by compliance webhooks and speech callbacks (issue
 * 37): a receiver that is slow or dead must not hold every delivery slot. Each instance counts its
 * deliveries in flight per receiver (the origin posted to) and per owner (the key or caller that set
 * the webhook); a receiver or owner at its cap is left out of the next claim, so the free slots go
 * to everyone else. A receiver that keeps failing gets a shorter timeout, then an open circuit
 * (nothing is sent to it, nothing is counted against its deliveries) that lets one trial through
 * after a cool-down, doubling while it keeps failing.
 */
export interface DeliveryGateSettings {
  /** Deliveries in flight to one receiver (1–2). */
  perReceiver: number;
  /** Deliveries in flight for one owner. */
  perOwner: number;
  /** The timeout of a delivery to a receiver in good standing. */
  timeoutMs: number;
  /** The timeout once a receiver has failed `shortTimeoutAfter` times in a row. */
  shortTimeoutMs: number;
  shortTimeoutAfter: number;
  /** Consecutive failures that open a receiver's circuit. */
  breakerThreshold: number;
  /** First cool-down of an open circuit; doubles per failed trial up to maxCooldownMs. */
  cooldownMs: number;
  maxCooldownMs: number;
}

export const DEFAULT_GATE_SETTINGS: DeliveryGateSettings = {
  perReceiver: 2,
  perOwner: 2,
  timeoutMs: 10_000,
  shortTimeoutMs: 2_000,
  shortTimeoutAfter: 2,
  breakerThreshold: 5,
  cooldownMs: 15_000,
  maxCooldownMs: 5 * 60_000,
};

/** The origin a URL posts to, lower-cased (`http://host:port`): what a receiver is. */
export function receiverOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`.toLowerCase();
  } catch {
    return url.slice(0, 300).toLowerCase();
  }
}

interface ReceiverHealth {
  failures: number;
  openUntil: number;
  cooldownMs: number;
}

/** A place taken by one delivery; `done` gives it back and records how the receiver did. */
export interface GatePass {
  readonly timeoutMs: number;
  done(outcome: 'ok' | 'failed' | 'none'): void;
}

export class DeliveryGate {
  readonly settings: DeliveryGateSettings;
  private readonly byReceiver = new Map<string, number>();
  private readonly byOwner = new Map<string, number>();
  private readonly health = new Map<string, ReceiverHealth>();

  constructor(settings: Partial<DeliveryGateSettings> = {}) {
    this.settings = { ...DEFAULT_GATE_SETTINGS, ...settings };
  }

  /** Receivers not to claim for now: at their cap, or with an open circuit (a half-open one takes one trial). */
  blockedReceivers(): string[] {
    const now = clock.nowMs();
    const out = new Set<string>();
    for (const [r, n] of this.byReceiver) if (n >= this.receiverCap(r, now)) out.add(r);
    for (const [r, h] of this.health) if (h.openUntil > now) out.add(r);
    return [...out];
  }

  /** Owners at their cap. */
  blockedOwners(): string[] {
    return [...this.byOwner].filter(([, n]) => n >= this.settings.perOwner).map(([o]) => o);
  }

  /** Circuits open now, by receiver (for metrics and tests). */
  openCircuits(): string[] {
    const now = clock.nowMs();
    return [...this.health].filter(([, h]) => h.openUntil > now).map(([r]) => r);
  }

  /**
   * Takes a place for a delivery just claimed; null when the receiver or owner is at its cap or the
   * circuit is open (another claim got there first): the caller puts the delivery back, uncounted.
   */
  enter(owner: string, receiver: string): GatePass | null {
    const now = clock.nowMs();
    const h = this.health.get(receiver);
    if (h && h.openUntil > now) return null;
    if ((this.byReceiver.get(receiver) ?? 0) >= this.receiverCap(receiver, now)) return null;
    if ((this.byOwner.get(owner) ?? 0) >= this.settings.perOwner) return null;
    this.bump(this.byReceiver, receiver, 1);
    this.bump(this.byOwner, owner, 1);
    const failing = (h?.failures ?? 0) >= this.settings.shortTimeoutAfter;
    let settled = false;
    return {
      timeoutMs: failing ? Math.min(this.settings.shortTimeoutMs, this.settings.timeoutMs) : this.settings.timeoutMs,
      done: (outcome) => {
        if (settled) return;
        settled = true;
        this.bump(this.byReceiver, receiver, -1);
        this.bump(this.byOwner, owner, -1);
        if (outcome === 'ok') this.health.delete(receiver);
        else if (outcome === 'failed') this.failed(receiver);
      },
    };
  }

  /** A receiver that failed before (half-open after its cool-down) gets one delivery at a time. */
  private receiverCap(receiver: string, now: number): number {
    const h = this.health.get(receiver);
    return h && h.failures >= this.settings.breakerThreshold && h.openUntil <= now ? 1 : this.settings.perReceiver;
  }

  private failed(receiver: string) {
    const h = this.health.get(receiver) ?? { failures: 0, openUntil: 0, cooldownMs: 0 };
    h.failures++;
    if (h.failures >= this.settings.breakerThreshold) {
      h.cooldownMs = h.cooldownMs ? Math.min(this.settings.maxCooldownMs, h.cooldownMs * 2) : this.settings.cooldownMs;
      h.openUntil = clock.nowMs() + h.cooldownMs;
    }
    this.health.set(receiver, h);
    // Bounded: receivers that failed long ago and were never tried again are forgotten first.
    if (this.health.size > 10_000) this.health.delete(this.health.keys().next().value!);
  }

  private bump(map: Map<string, number>, key: string, by: number) {
    const n = (map.get(key) ?? 0) + by;
    if (n <= 0) map.delete(key);
    else map.set(key, n);
  }
}

/** `not in (…)` over a column for the blocked keys, with its parameters ('' when none is blocked). */
export function notAmong(column: string, keys: readonly string[]): { sql: string; params: string[] } {
  if (!keys.length) return { sql: '', params: [] };
  return { sql: ` and ${column} not in (${keys.map(() => '?').join(', ')})`, params: [...keys] };
}
