import Redis from 'ioredis';
import type { DomainEvent, EventBus, Unsubscribe } from '../domain/events/bus';
import type { Logger } from './logger';

/**
 * The event bus across instances: every publish goes through Redis pub/sub, and each instance
 * delivers what it receives to its local subscribers, so a change made on one instance reaches
 * subscribers connected to any other.
 */
export class RedisEventBus implements EventBus {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly handlers = new Map<string, Set<(e: DomainEvent) => void>>();

  constructor(
    url: string,
    private readonly log: Logger,
  ) {
    this.pub = new Redis(url, { maxRetriesPerRequest: 3 });
    this.sub = new Redis(url, { maxRetriesPerRequest: null });
    this.sub.on('message', (channel: string, message: string) => {
      const set = this.handlers.get(channel);
      if (!set) return;
      let event: DomainEvent;
      try {
        event = JSON.parse(message) as DomainEvent;
      } catch {
        return;
      }
      for (const h of set) {
        try {
          h(event);
        } catch (err) {
          this.log.warn({ err }, 'event subscriber failed');
        }
      }
    });
    this.pub.on('error', (err) => this.log.warn({ err: err.message }, 'redis publisher error'));
    this.sub.on('error', (err) => this.log.warn({ err: err.message }, 'redis subscriber error'));
  }

  async publish(channel: string, event: DomainEvent): Promise<void> {
    await this.pub.publish(channel, JSON.stringify(event));
  }

  subscribe(channel: string, handler: (e: DomainEvent) => void): Unsubscribe {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      // Only once connected and ready: a SUBSCRIBE sent while ioredis still runs its ready check
      // turns the connection into subscriber mode under that check, which then fails and leaves
      // the channel unsubscribed. After a reconnect ioredis re-subscribes by itself.
      const join = () => void this.sub.subscribe(channel).catch((err) => this.log.error({ err }, 'redis subscribe failed'));
      if (this.sub.status === 'ready') join();
      else this.sub.once('ready', join);
    }
    set.add(handler);
    return () => {
      set!.delete(handler);
    };
  }

  /** Resolves once the subscriber connection has joined every channel asked for so far. */
  async ready(): Promise<void> {
    if (this.sub.status !== 'ready') await new Promise((r) => this.sub.once('ready', r));
  }

  async close(): Promise<void> {
    this.sub.disconnect();
    this.pub.disconnect();
  }
}
