import { EventEmitter } from 'node:events';
import { newId } from '../ids';

export interface DomainEvent<T = Record<string, unknown>> {
  id: string;
  /** Dotted type, e.g. `requirement.updated`, `compliance.score_changed`. */
  type: string;
  data: T;
  createdAt: string;
}

export function makeEvent<T>(type: string, data: T): DomainEvent<T> {
  return { id: newId('evt'), type, data, createdAt: new Date().toISOString() };
}

export type Unsubscribe = () => void;

/**
 * Fan-out of live events to every subscriber on every instance. The in-process bus serves one
 * instance; the Redis bus (same interface) serves several.
 */
export interface EventBus {
  publish(channel: string, event: DomainEvent<any>): Promise<void>;
  subscribe(channel: string, handler: (event: DomainEvent<any>) => void): Unsubscribe;
  close(): Promise<void>;
}

export class InProcessEventBus implements EventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  async publish(channel: string, event: DomainEvent<any>): Promise<void> {
    this.emitter.emit(channel, event);
  }

  subscribe(channel: string, handler: (event: DomainEvent<any>) => void): Unsubscribe {
    const safe = (e: DomainEvent<any>) => {
      try {
        handler(e);
      } catch {
        /* one subscriber's failure must not stop the others */
      }
    };
    this.emitter.on(channel, safe);
    return () => this.emitter.off(channel, safe);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

/**
 * Adapts a bus subscription to an AsyncIterableIterator (what GraphQL subscriptions and tRPC
 * subscriptions consume), buffering events a slow consumer has not read yet, up to a bound.
 */
export function subscribeIterator<T>(
  bus: EventBus,
  channel: string,
  filter: (e: DomainEvent<any>) => boolean = () => true,
  map: (e: DomainEvent<any>) => T = (e) => e as unknown as T,
  maxBuffer = 1000,
): AsyncIterableIterator<T> {
  const queue: T[] = [];
  let waiting: ((r: IteratorResult<T>) => void) | null = null;
  let done = false;
  const unsubscribe = bus.subscribe(channel, (e) => {
    if (done || !filter(e)) return;
    const value = map(e);
    if (waiting) {
      const w = waiting;
      waiting = null;
      w({ value, done: false });
    } else if (queue.length < maxBuffer) {
      queue.push(value);
    }
  });
  const finish = (): IteratorResult<T> => {
    if (!done) {
      done = true;
      unsubscribe();
      waiting?.({ value: undefined as never, done: true });
      waiting = null;
    }
    return { value: undefined as never, done: true };
  };
  return {
    next() {
      if (queue.length) return Promise.resolve({ value: queue.shift()!, done: false });
      if (done) return Promise.resolve({ value: undefined as never, done: true });
      return new Promise((resolve) => (waiting = resolve));
    },
    return() {
      return Promise.resolve(finish());
    },
    throw(err) {
      finish();
      return Promise.reject(err);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
