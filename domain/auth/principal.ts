import type { Plan } from './api-key.entity';
import type { Permission } from './permissions';

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
}

export function can(principal: Principal | null | undefined, permission: Permission): boolean {
  return !!principal && (principal.isAdmin || principal.permissions.has(permission));
}
