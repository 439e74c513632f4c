import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from './auth/principal';
import { createLoaders, type Loaders } from './loaders';

/**
 * What every domain operation receives: its own EntityManager fork (so identity maps never leak
 * between requests), per-request DataLoaders, and the caller. Built once per request, operation
 * or subscription event.
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
 * health, catalogue reads) never pay for them. A class, so the lazy getters live on the prototype
 * instead of being defined anew for every request.
 */
class LazyDomainContext implements DomainContext {
  readonly requestId: string;
  readonly principal: Principal | null;
  readonly ip?: string;
  #em?: EntityManager;
  #loaders?: Loaders;

  constructor(
    private readonly rootEm: EntityManager,
    init: { requestId: string; principal: Principal | null; ip?: string },
  ) {
    this.requestId = init.requestId;
    this.principal = init.principal;
    if (init.ip !== undefined) this.ip = init.ip;
  }

  get em(): EntityManager {
    return (this.#em ??= this.rootEm.fork({ clear: true, useContext: false }) as EntityManager);
  }

  get loaders(): Loaders {
    return (this.#loaders ??= createLoaders(this.em));
  }
}

export function createDomainContext(rootEm: EntityManager, init: { requestId: string; principal: Principal | null; ip?: string }): DomainContext {
  return new LazyDomainContext(rootEm, init);
}

/** Who did it, for activity records: the key's name then (for display) and its id (the identity). */
export function actorName(ctx: Pick<DomainContext, 'principal'>): string {
  return ctx.principal ? ctx.principal.name : 'anonymous';
}

export function actorKeyId(ctx: Pick<DomainContext, 'principal'>): string | null {
  return ctx.principal ? ctx.principal.keyId : null;
}
