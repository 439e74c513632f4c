import { EventEmitter } from 'node:events';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { newId } from '../ids';
import { clock } from '../clock';

export interface DomainEvent<T = Record<string, unknown>> {
  id: string;
  /** Dotted type, e.g. `requirement.updated`, `compliance.score_changed`. */
  type: string;
  data: T;
  createdAt: string;
}

export function makeEvent<T>(type: string, data: T): DomainEvent<T> {
  return { id: newId('evt'), type, data, createdAt: clock.now().toISOString() };
}

export type Unsubscribe = () => void;

/**
 * Fan-out of live events to every subscriber on every instance. The in-process bus serves one
 * instance; the Redis bus (same interface) serves several.
 */
export interface EventBus {
  publish(channel: string, event: DomainEvent): Promise<void>;
  subscribe(channel: string, handler: (event: DomainEvent) => void): Unsubscribe;
  close(): Promise<void>;
}

export class InProcessEventBus implements EventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  async publish(channel: string, event: DomainEvent): Promise<void> {
    this.emitter.emit(channel, event);
  }

  subscribe(channel: string, handler: (event: DomainEvent) => void): Unsubscribe {
    const safe = (e: DomainEvent) => {
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
 * How many local subscribers one event is handed to before the fan-out yields to the event loop.
 * Handing an event over sets off that subscriber's work (executing its subscription, writing
 * to its stream or socket) as microtasks; handed to a thousand at once, nothing else runs until all
 * of them are through. In slices, requests and other events get a turn during a large fan-out.
 */
export const FAN_OUT_SLICE = 64;

type Sink = (e: DomainEvent) => void;

/**
 * One bus subscription per channel, shared by every local iterator on that channel. Events are
 * delivered in the order the bus gave them; each event goes to the iterators subscribed when it
 * arrived (and still subscribed when their turn comes), `FAN_OUT_SLICE` at a time.
 */
class ChannelFanOut {
  readonly sinks = new Set<Sink>();
  private readonly queue: { event: DomainEvent; sinks: Sink[] }[] = [];
  private draining = false;
  private readonly unsubscribe: Unsubscribe;

  constructor(
    bus: EventBus,
    channel: string,
    private readonly onIdle: () => void,
  ) {
    this.unsubscribe = bus.subscribe(channel, (event) => {
      this.queue.push({ event, sinks: [...this.sinks] });
      if (!this.draining) void this.drain();
    });
  }

  remove(sink: Sink) {
    this.sinks.delete(sink);
    if (!this.sinks.size && !this.draining) this.close();
  }

  private close() {
    this.unsubscribe();
    this.onIdle();
  }

  private async drain() {
    this.draining = true;
    try {
      while (this.queue.length) {
        const { event, sinks } = this.queue.shift()!;
        for (let i = 0; i < sinks.length; i++) {
          if (i && i % FAN_OUT_SLICE === 0) await yieldToEventLoop();
          if (!this.sinks.has(sinks[i])) continue; // unsubscribed meanwhile
          try {
            sinks[i](event);
          } catch {
            /* one subscriber's failure must not stop the others */
          }
        }
      }
    } finally {
      this.draining = false;
      if (!this.sinks.size) this.close();
    }
  }
}

const fanOuts = new WeakMap<EventBus, Map<string, ChannelFanOut>>();

function subscribeLocal(bus: EventBus, channel: string, sink: Sink): Unsubscribe {
  let channels = fanOuts.get(bus);
  if (!channels) fanOuts.set(bus, (channels = new Map()));
  let fanOut = channels.get(channel);
  if (!fanOut) {
    const created: ChannelFanOut = new ChannelFanOut(bus, channel, () => {
      if (channels!.get(channel) === created) channels!.delete(channel);
    });
    channels.set(channel, (fanOut = created));
  }
  fanOut.sinks.add(sink);
  const owner = fanOut;
  return () => owner.remove(sink);
}

/**
 * Adapts a bus subscription to an AsyncIterableIterator (what subscriptions consume), buffering events a slow consumer has not read yet, up to a bound
 * (beyond it, newer events are dropped for that consumer rather than held without limit).
 */
export function subscribeIterator<T>(
  bus: EventBus,
  channel: string,
  filter: (e: DomainEvent) => boolean = () => true,
  map: (e: DomainEvent) => T = (e) => e as unknown as T,
  maxBuffer = 1000,
): AsyncIterableIterator<T> {
  const queue: T[] = [];
  let waiting: ((r: IteratorResult<T>) => void) | null = null;
  let done = false;
  const unsubscribe = subscribeLocal(bus, channel, (e) => {
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
