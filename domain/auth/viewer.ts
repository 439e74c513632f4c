import { DomainError } from '../errors';
import type { DomainContext } from '../context';
import type { Plan } from './api-key.entity';
import { ALL_PERMISSIONS, type Permission } from './permissions';
import { can } from './principal';

/** Who the caller is and what it may do: what a client (the web console) needs to offer only that. */
export interface ViewerView {
  keyId: string;
  name: string;
  isAdmin: boolean;
  plan: Plan;
  /** Effective permissions, in catalogue order (the admin holds every one). */
  permissions: Permission[];
  /** Speech generation and reads need no key on this deployment (no API_KEY configured). */
  speechOpen: boolean;
}

/**
 * Any valid key may describe itself, so it needs no permission beyond being a key; without one the
 * answer is AUTHENTICATION_ERROR like every other compliance read.
 */
export function describeViewer(ctx: Pick<DomainContext, 'principal'>, opts: { speechKeyRequired: boolean }): ViewerView {
  const p = ctx.principal;
  if (!p) throw new DomainError('AUTHENTICATION_ERROR');
  return {
    keyId: p.keyId,
    name: p.name,
    isAdmin: p.isAdmin,
    plan: p.plan,
    permissions: ALL_PERMISSIONS.filter((perm) => can(p, perm)),
    speechOpen: !opts.speechKeyRequired,
  };
}
