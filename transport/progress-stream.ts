import { progressWhileValid, settledLater } from '../domain/auth/principal-watch';
import type { DomainContext } from '../domain/context';
import type { Services } from '../domain/services';
import { lostKeyEvent, type ProgressEvent } from '../domain/tts/generation-response';
import { progressErrorEvent } from './client-error';
import { pushIterator } from './push-iterator';

export type { ProgressEvent };

/**
 * One progressive generation as every transport streams it (SSE, the GraphQL and tRPC
 * subscriptions): its events go to `emit` while the caller's key stays valid; a key that stops being
 * valid ends the stream with an `error` event and stops the generation; a failure ends it with an
 * `error` event carrying the code and message a client may see (never a driver's code or text).
 * `rethrow()` true at the time of a failure throws it instead (SSE before its first event, which
 * can still answer a plain JSON error).
 */
export async function runProgressStream(
  services: Services,
  ctx: DomainContext,
  input: unknown,
  emit: (e: ProgressEvent) => void,
  opts: { rethrow?: () => boolean } = {},
): Promise<void> {
  const guard = progressWhileValid(services.principals, ctx.principal, null, emit, lostKeyEvent);
  try {
    await Promise.race([settledLater(services.tts.generation.generateProgressive(ctx, input, guard.emit, guard.signal)), guard.lost]);
  } catch (err) {
    if (opts.rethrow?.()) throw err;
    guard.emit(progressErrorEvent(err));
  } finally {
    guard.stop();
  }
}

/** The same stream as an async iterator, for subscriptions; it ends after `complete` or `error`. */
export function progressEvents(services: Services, ctx: DomainContext, input: unknown): AsyncIterableIterator<ProgressEvent> {
  return pushIterator<ProgressEvent>((push) => runProgressStream(services, ctx, input, push));
}

export const isLastProgressEvent = (e: ProgressEvent) => e.type === 'complete' || e.type === 'error';
