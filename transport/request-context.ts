import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../domain/auth/principal';
import { createDomainContext, type DomainContext } from '../domain/context';
import { newRequestId } from './request-id';

/** Who is asking, as a transport knows it. */
export interface Caller {
  /** The HTTP request's id; an operation on a socket gets a fresh one. */
  requestId?: string;
  principal?: Principal | null;
  ip?: string;
}

/**
 * The one way a transport makes the domain context of a request, a GraphQL operation or a socket
 * operation: bound once to the root EntityManager, so no transport holds the database.
 */
export class RequestContexts {
  constructor(private readonly rootEm: EntityManager) {}

  of(caller: Caller): DomainContext {
    return createDomainContext(this.rootEm, { requestId: caller.requestId ?? newRequestId(), principal: caller.principal ?? null, ip: caller.ip });
  }

  /** An express request after the auth middleware: its id, its key (or the one given), its address. */
  ofRequest(req: { id: string; principal?: Principal | null; ip?: string }, principal: Principal | null = req.principal ?? null): DomainContext {
    return this.of({ requestId: req.id, principal, ip: req.ip });
  }
}
