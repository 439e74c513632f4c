import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from './auth/principal';
import { createLoaders, type Loaders } from './loaders';

/**
 * What every domain operation receives: its own EntityManager fork (so identity maps never leak
 * between requests), per-request DataLoaders, and the caller. Built once per HTTP request,
 * GraphQL operation or subscription event.
 */
export interface DomainContext {
  requestId: string;
  em: EntityManager;
  principal: Principal | null;
  loaders: Loaders;
  /** Client address, for per-IP limits and activity records. */
  ip?: string;
}

/**
 * The fork and the loaders are made on first use: requests answered from memory (cached audio,
 * health, catalogue reads) never pay for them.
 */
export function createDomainContext(
  rootEm: EntityManager,
  init: { requestId: string; principal: Principal | null; ip?: string },
): DomainContext {
  let em: EntityManager | undefined;
  let loaders: Loaders | undefined;
  return {
    ...init,
    get em() {
      return (em ??= rootEm.fork({ clear: true, useContext: false }) as EntityManager);
    },
    get loaders() {
      return (loaders ??= createLoaders(this.em));
    },
  };
}

/** Who did it, for activity records. */
export function actorName(ctx: DomainContext): string {
  return ctx.principal ? ctx.principal.name : 'anonymous';
}
