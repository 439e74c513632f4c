import { DomainError } from '../domain/errors';

const LOST = Symbol('principal lost');

/** A subscription event standing for "the caller's key is no longer valid". */
export interface LostEvent {
  [LOST]: DomainError;
}

/**
 * GraphQL subscriptions report a failure as an event with `errors`, then complete: a domain error
 * thrown by the event stream (the caller's key was revoked, expired or lost its permission) becomes
 * one last event, which the field resolver turns back into the error (`rethrowLoss`).
 */
export function lossAsLastEvent<T>(source: AsyncIterableIterator<T>): AsyncIterableIterator<T | LostEvent> {
  let over = false;
  return {
    async next() {
      if (over) return { value: undefined as never, done: true };
      try {
        return await source.next();
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        over = true;
        return { value: { [LOST]: err }, done: false };
      }
    },
    async return() {
      over = true;
      await source.return?.();
      return { value: undefined as never, done: true };
    },
    async throw(err) {
      over = true;
      await source.return?.();
      throw err;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** In a subscription's field resolver: the last event of a lost key becomes the field's error. */
export function rethrowLoss<T>(event: T | LostEvent): T {
  if (event && typeof event === 'object' && LOST in event) throw (event as LostEvent)[LOST];
  return event as T;
}
