import type { Plan } from './api-key.entity';
import type { Permission } from './permissions';
import { DomainError } from '../errors';

/** Who is calling: an issued key, the admin key, or (TTS in open mode) an anonymous caller. */
export interface Principal {
  keyId: string;
  name: string;
  permissions: ReadonlySet<Permission>;
  isAdmin: boolean;
  plan: Plan;
  /** An issued key (a row in api_keys): it can be revoked, and live channels watch it. */
  revocable?: boolean;
  /** When the key, or an issuer above it, expires (ms since the epoch); absent: never. */
  validUntil?: number;
  /**
   * Whose hourly plan budget the key spends: the key at the root of its lineage (the topmost issued
   * key below the admin), shared by that key and every key descended from it (issue 37). Absent:
   * the key's own.
   */
  budget?: { keyId: string; plan: Plan };
}

export function can(principal: Principal | null | undefined, permission: Permission): boolean {
  return !!principal && (principal.isAdmin || principal.permissions.has(permission));
}

/** 401 without a principal, 403 when the principal lacks the permission. */
export function requirePermission(ctx: { principal: Principal | null }, permission: Permission): Principal {
  if (!ctx.principal) throw new DomainError('AUTHENTICATION_ERROR');
  if (!can(ctx.principal, permission)) {
    throw new DomainError('AUTHORIZATION_ERROR', `This key lacks the '${permission}' permission`, {
      details: { required: permission },
    });
  }
  return ctx.principal;
}
