import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { actorOf, SYSTEM_ACTOR, type AuditTrail } from '../audit/audit-trail.service';
import { DomainError } from '../errors';
import { newId } from '../ids';
import type { DomainContext } from '../context';
import { parseInput } from '../validation';
import { ApiKey, type Plan } from './api-key.entity';
import { ALL_PERMISSIONS, isPermission, type Permission } from './permissions';
import { can, type Principal } from './principal';
import { clock } from '../clock';

const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

const DURATION_UNITS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  y: 365 * 86_400_000,
};

/** `30d`, `12h`, `1y`… → milliseconds. Units: s, m, h, d, w, y (see docs/decisions.md). */
export function parseDuration(text: string): number | null {
  const m = /^(\d{1,6})([smhdwy])$/.exec(text.trim());
  if (!m) return null;
  const ms = Number(m[1]) * DURATION_UNITS[m[2]];
  return ms > 0 && ms <= 10 * 365 * 86_400_000 ? ms : null;
}

export const CreateApiKeyInput = z.object({
  name: z.string().trim().min(1).max(200),
  permissions: z
    .array(z.string())
    .min(1)
    .max(ALL_PERMISSIONS.length)
    .refine((ps) => ps.every(isPermission), { message: `each permission must be one of: ${ALL_PERMISSIONS.join(', ')}` }),
  expiresIn: z
    .string()
    .refine((s) => parseDuration(s) !== null, { message: 'must be a count and a unit: s, m, h, d, w or y (e.g. 30d), at most 10 years' })
    .optional(),
  plan: z.enum(['standard', 'premium', 'enterprise']).optional(),
});
export type CreateApiKeyInput = z.infer<typeof CreateApiKeyInput>;

export interface IssuedKey {
  id: string;
  key: string;
  name: string;
  permissions: string[];
  plan: Plan;
  expiresAt: string | null;
  createdAt: string;
}

const PRINCIPAL_CACHE_MS = 5000;

export class AuthService {
  /** Short cache of resolved keys: one database read per key per few seconds, not per request. */
  private readonly cache = new Map<string, { principal: Principal | null; until: number }>();
  private readonly adminKeyHash?: Buffer;
  private readonly ttsKeyHash?: Buffer;
  private readonly auditTrail?: AuditTrail;

  constructor(
    private readonly rootEm: EntityManager,
    opts: { adminApiKey?: string; ttsApiKey?: string; auditTrail?: AuditTrail },
  ) {
    this.auditTrail = opts.auditTrail;
    if (opts.adminApiKey) this.adminKeyHash = Buffer.from(hashSecret(opts.adminApiKey), 'hex');
    if (opts.ttsApiKey) this.ttsKeyHash = Buffer.from(hashSecret(opts.ttsApiKey), 'hex');
  }

  static adminPrincipal(keyId = 'admin', name = 'admin'): Principal {
    return { keyId, name, permissions: new Set(ALL_PERMISSIONS), isAdmin: true, plan: 'enterprise' };
  }

  /**
   * With no ADMIN_API_KEY configured, the first start makes one, stores its hash, and returns the
   * secret for the caller to print once. Later starts find the stored key and return nothing.
   */
  async ensureBootstrapAdmin(): Promise<string | null> {
    if (this.adminKeyHash) return null;
    const em = this.rootEm.fork();
    const existing = await em.count(ApiKey, { isAdmin: true, revokedAt: null });
    if (existing > 0) return null;
    const secret = `sk_admin_${randomBytes(24).toString('base64url')}`;
    await em.transactional(async (tx) => {
      const key = tx.create(ApiKey, {
      id: newId('key'),
      name: 'bootstrap admin',
      secretHash: hashSecret(secret),
      prefix: secret.slice(0, 12),
      permissions: [...ALL_PERMISSIONS],
      plan: 'enterprise',
      isAdmin: true,
      createdAt: clock.now(),
      });
      this.auditTrail?.record(tx as EntityManager, SYSTEM_ACTOR, { action: 'api_key.issue', entityType: 'api_key', entityId: key.id }, null, auditedKey(key));
    });
    return secret;
  }

  /** Resolves a bearer secret to a principal, or null when unknown, expired or revoked. */
  async authenticate(secret: string | undefined | null): Promise<Principal | null> {
    if (!secret) return null;
    const digest = hashSecret(secret);
    if (this.adminKeyHash && timingSafeEqual(Buffer.from(digest, 'hex'), this.adminKeyHash)) {
      return AuthService.adminPrincipal();
    }
    if (this.ttsKeyHash && timingSafeEqual(Buffer.from(digest, 'hex'), this.ttsKeyHash)) {
      // The deployment-wide API_KEY of the TTS spec: speech only, nothing of the compliance platform.
      return { keyId: 'api-key', name: 'API_KEY', permissions: new Set<Permission>(['tts:generate', 'tts:read']), isAdmin: false, plan: 'standard' };
    }
    const now = clock.nowMs();
    const hit = this.cache.get(digest);
    if (hit && hit.until > now) return hit.principal;
    // Lookup is by the hash's unique index: the secret never meets a comparison that could leak timing.
    const row = await this.rootEm.fork().findOne(ApiKey, { secretHash: digest });
    let principal: Principal | null = null;
    if (row && !row.revokedAt && (!row.expiresAt || row.expiresAt.getTime() > now)) {
      principal = {
        keyId: row.id,
        name: row.name,
        permissions: new Set(row.permissions.filter(isPermission)),
        isAdmin: row.isAdmin,
        plan: row.plan,
      };
    }
    const until = Math.min(now + PRINCIPAL_CACHE_MS, row?.expiresAt?.getTime() ?? Infinity);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(digest, { principal, until });
    return principal;
  }

  async issueKey(ctx: DomainContext, raw: unknown): Promise<IssuedKey> {
    requirePermission(ctx, 'manage:api-keys');
    const input = parseInput(CreateApiKeyInput, raw);
    const principal = ctx.principal!;
    const permissions = input.permissions as Permission[];
    const beyond = permissions.filter((p) => !can(principal, p));
    if (beyond.length) {
      throw new DomainError('AUTHORIZATION_ERROR', `A key cannot grant permissions its issuer lacks: ${beyond.join(', ')}`, {
        details: { missing: beyond },
        fields: beyond.map((p) => ({ field: 'permissions', message: `issuer lacks ${p}` })),
      });
    }
    if (input.plan && input.plan !== 'standard' && !principal.isAdmin) {
      throw new DomainError('AUTHORIZATION_ERROR', 'Only the admin key can issue keys on a paid plan', {
        fields: [{ field: 'plan', message: 'admin only' }],
      });
    }
    const secret = `sk_${randomBytes(24).toString('base64url')}`;
    const now = clock.now();
    const expiresAt = input.expiresIn ? new Date(now.getTime() + parseDuration(input.expiresIn)!) : null;
    const key = await ctx.em.transactional(async (tx) => {
      const row = tx.create(ApiKey, {
        id: newId('key'),
        name: input.name,
        secretHash: hashSecret(secret),
        prefix: secret.slice(0, 8),
        permissions: [...new Set(permissions)],
        plan: input.plan ?? 'standard',
        isAdmin: false,
        expiresAt,
        createdBy: principal.keyId,
        createdAt: now,
      });
      this.auditTrail?.record(tx as EntityManager, actorOf(ctx), { action: 'api_key.issue', entityType: 'api_key', entityId: row.id }, null, auditedKey(row));
      return row;
    });
    return {
      id: key.id,
      key: secret,
      name: key.name,
      permissions: key.permissions,
      plan: key.plan,
      expiresAt: expiresAt ? expiresAt.toISOString() : null,
      createdAt: now.toISOString(),
    };
  }

  async revokeKey(ctx: DomainContext, id: string): Promise<{ revoked: boolean }> {
    requirePermission(ctx, 'manage:api-keys');
    await ctx.em.transactional(async (tx) => {
      const key = typeof id === 'string' && id.length <= 40 ? await tx.findOne(ApiKey, { id }) : null;
      if (!key) throw new DomainError('NOT_FOUND', `API key '${String(id).slice(0, 40)}' not found`, { details: { id } });
      if (!ctx.principal!.isAdmin && key.createdBy !== ctx.principal!.keyId) {
        throw new DomainError('AUTHORIZATION_ERROR', 'Only the admin or the issuer can revoke this key');
      }
      if (key.revokedAt) return;
      key.revokedAt = clock.now();
      this.auditTrail?.record(tx as EntityManager, actorOf(ctx), { action: 'api_key.revoke', entityType: 'api_key', entityId: key.id }, { revokedAt: null }, { revokedAt: key.revokedAt.toISOString() });
    });
    this.cache.clear();
    return { revoked: true };
  }
}

/** What the trail keeps of a key: never its secret or hash. */
const auditedKey = (k: ApiKey) => ({
  name: k.name,
  prefix: k.prefix,
  permissions: k.permissions,
  plan: k.plan,
  isAdmin: k.isAdmin,
  expiresAt: k.expiresAt ? k.expiresAt.toISOString() : null,
  createdBy: k.createdBy ?? null,
});

/** 401 without a principal, 403 when the principal lacks the permission. */
export function requirePermission(ctx: Pick<DomainContext, 'principal'>, permission: Permission): Principal {
  if (!ctx.principal) throw new DomainError('AUTHENTICATION_ERROR');
  if (!can(ctx.principal, permission)) {
    throw new DomainError('AUTHORIZATION_ERROR', `This key lacks the '${permission}' permission`, {
      details: { required: permission },
    });
  }
  return ctx.principal;
}
