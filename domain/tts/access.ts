import { DomainError } from '../errors';
import type { DomainContext } from '../context';
import { can } from '../auth/principal';
import type { Permission } from '../auth/permissions';

/**
 * TTS is open in development (no API_KEY configured) and keyed in production; cache
 * administration always needs a key with `tts:admin` (the admin key has it).
 */
export class TtsAccessPolicy {
  constructor(private readonly keyRequired: boolean) {}

  require(ctx: Pick<DomainContext, 'principal'>, permission: Permission): void {
    const adminOnly = permission === 'tts:admin';
    if (!adminOnly && !this.keyRequired) return;
    if (!ctx.principal) throw new DomainError('AUTHENTICATION_ERROR', 'A valid API key is required: Authorization: Bearer <API_KEY>');
    if (!can(ctx.principal, permission)) {
      throw new DomainError('AUTHORIZATION_ERROR', `This key lacks the '${permission}' permission`, { details: { required: permission } });
    }
  }
}
