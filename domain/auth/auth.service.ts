import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { actorOf, SYSTEM_ACTOR, type AuditTrail } from '../audit/audit-trail.service';
import { DomainError } from '../errors';
import { newId } from '../ids';
import type { DomainContext } from '../context';
import { parseInput } from '../validation';
import { ApiKey, PLANS, type Plan } from './api-key.entity';
import { ALL_PERMISSIONS, isPermission, type Permission } from './permissions';
import { can, requirePermission, type Principal } from './principal';
import { clock } from '../clock';

// One-shot `hash`: every authenticated request hashes its key, and a Hash object per call cost ~2x (more under load).
const hashSecret = (secret: string) => hash('sha256', secret, 'hex');

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
    // Checked as a whole (one message naming the set); documented per item as the enum it is.
    .array(z.string().meta({ enum: [...ALL_PERMISSIONS] }))
    .min(1)
    .max(ALL_PERMISSIONS.length)
    .refine((ps) => ps.every(isPermission), { message: `each permission must be one of: ${ALL_PERMISSIONS.join(', ')}` }),
  expiresIn: z
    .string()
    .refine((s) => parseDuration(s) !== null, { message: 'must be a count and a unit: s, m, h, d, w or y (e.g. 30d), at most 10 years' })
    .optional(),
  plan: z.enum(PLANS as unknown as [Plan, ...Plan[]]).optional(),
});
export type CreateApiKeyInput = z.infer<typeof CreateApiKeyInput>;
/** CreateApiKeyInput as clients are typed: the permissions are the closed set. */
export const CreateApiKeyContract = CreateApiKeyInput.extend({ permissions: z.array(z.enum(ALL_PERMISSIONS as [Permission, ...Permission[]])).min(1) });

/** A key as the listing shows it: never its secret or hash. `issuedBy` is the issuing key's id. */
export interface KeyListing {
  id: string;
  prefix: string;
  name: string;
  permissions: string[];
  plan: Plan;
  isAdmin: boolean;
  issuedBy: string | null;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const iso = (d?: Date | null) => (d ? d.toISOString() : null);
const listed = (k: ApiKey): KeyListing => ({
  id: k.id,
  prefix: k.prefix,
  name: k.name,
  permissions: k.permissions,
  plan: k.plan,
  isAdmin: k.isAdmin,
  issuedBy: k.createdBy ?? null,
  createdAt: k.createdAt.toISOString(),
  expiresAt: iso(k.expiresAt),
  lastUsedAt: iso(k.lastUsedAt),
  revokedAt: iso(k.revokedAt),
});

/** Longest issuer chain walked when authenticating; deeper lineages are refused rather than trusted. */
const MAX_LINEAGE_DEPTH = 32;

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
/** The principal id of the configured ADMIN_API_KEY (it has no row in api_keys). */
export const ADMIN_PRINCIPAL_ID = 'admin';

/**
 * The principals of the configured keys, one object each for the life of the process: caches that
 * remember what was computed for a caller (GraphQL answers, by principal) find it again.
 */
const frozenPrincipal = (p: Principal): Principal => Object.freeze(p);
let configuredAdmin: Principal | undefined;
/** The deployment-wide API_KEY of the TTS spec: speech only, nothing of the compliance platform. */
const CONFIGURED_TTS_KEY = frozenPrincipal({
  keyId: 'api-key',
  name: 'API_KEY',
  permissions: new Set<Permission>(['tts:generate', 'tts:read']),
  isAdmin: false,
  plan: 'standard',
});

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

  static adminPrincipal(keyId = ADMIN_PRINCIPAL_ID, name = 'admin'): Principal {
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

  /**
   * The principal of a bearer secret when it is known without asking the database (a configured
   * key, or one resolved within the cache period): a principal, or null for a key known to be
   * invalid; undefined when only `authenticate` can tell. Lets a request front stay synchronous.
   */
  knownPrincipal(secret: string | undefined | null): Principal | null | undefined {
    if (!secret) return null;
    return this.knownByDigest(hashSecret(secret), clock.nowMs());
  }

  private knownByDigest(digest: string, now: number): Principal | null | undefined {
    if (this.adminKeyHash || this.ttsKeyHash) {
      const bytes = Buffer.from(digest, 'hex');
      if (this.adminKeyHash && timingSafeEqual(bytes, this.adminKeyHash)) return (configuredAdmin ??= frozenPrincipal(AuthService.adminPrincipal()));
      if (this.ttsKeyHash && timingSafeEqual(bytes, this.ttsKeyHash)) return CONFIGURED_TTS_KEY;
    }
    const hit = this.cache.get(digest);
    return hit && hit.until > now ? hit.principal : undefined;
  }

  /** Resolves a bearer secret to a principal, or null when unknown, expired or revoked. */
  async authenticate(secret: string | undefined | null): Promise<Principal | null> {
    if (!secret) return null;
    const digest = hashSecret(secret);
    const now = clock.nowMs();
    const known = this.knownByDigest(digest, now);
    if (known !== undefined) return known;
    // Lookup is by the hash's unique index: the secret never meets a comparison that could leak timing.
    const row = await this.rootEm.fork().findOne(ApiKey, { secretHash: digest });
    let principal: Principal | null = null;
    const lineage = row ? await this.lineageValidity(row, now) : { valid: false, until: Infinity };
    if (row && lineage.valid) principal = principalOfRow(row, lineage.until, lineage.root);
    const until = Math.min(now + PRINCIPAL_CACHE_MS, lineage.until);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(digest, { principal, until });
    if (row && principal) {
      // At most once per cache period per key; a failed bookkeeping write never fails the request.
      await this.rootEm
        .fork()
        .nativeUpdate(ApiKey, { id: row.id }, { lastUsedAt: new Date(now) })
        .catch(() => undefined);
    }
    return principal;
  }

  /**
   * The principal of an issued key as the database has it now, or why it has none (revoked or
   * expired along its lineage, or gone): what live channels re-check their callers against.
   */
  async current(keyId: string): Promise<Principal | 'revoked' | 'expired' | 'unknown'> {
    const em = this.rootEm.fork();
    const row = await em.findOne(ApiKey, { id: keyId });
    if (!row) return 'unknown';
    const lineage = await this.lineageValidity(row, clock.nowMs(), em);
    if (lineage.valid) return principalOfRow(row, lineage.until);
    if (lineage.reason === 'revoked' || lineage.reason === 'issuer revoked') return 'revoked';
    if (lineage.reason === 'expired' || lineage.reason === 'issuer expired') return 'expired';
    return 'unknown';
  }

  /** Drops every cached key: a revocation was announced (here or on another instance). */
  forgetCached() {
    this.cache.clear();
  }

  /** Told the ids of every key a revocation stopped (the key and its descendants). */
  onRevoked?: (keyIds: string[]) => Promise<void>;

  /**
   * A key is valid only while it and every issuer above it are unrevoked and unexpired: a child never
   * outlives its issuer, even one minted before expiries were capped. `until` is the earliest expiry.
   */
  private lineageValidity(row: ApiKey, now: number, em: EntityManager = this.rootEm.fork()): Promise<Lineage> {
    return lineageOf(em, row, now);
  }

  /** The admin sees every key; any other key sees the keys it issued. Newest first. */
  async listKeys(ctx: DomainContext): Promise<{ data: KeyListing[] }> {
    const principal = requirePermission(ctx, 'manage:api-keys');
    const rows = await ctx.em.find(ApiKey, principal.isAdmin ? {} : { createdBy: principal.keyId }, { orderBy: { createdAt: 'desc', id: 'desc' } });
    return { data: rows.map(listed) };
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
    const requested = input.expiresIn ? now.getTime() + parseDuration(input.expiresIn)! : Infinity;
    const key = await ctx.em.transactional(async (tx) => {
      // A child never outlives its issuer: its expiry is capped at the issuer's (and its issuers').
      const issuer = principal.keyId === ADMIN_PRINCIPAL_ID ? null : await tx.findOne(ApiKey, { id: principal.keyId });
      const issuerUntil = issuer ? (await this.lineageValidity(issuer, now.getTime(), tx as EntityManager)).until : Infinity;
      const capped = Math.min(requested, issuerUntil);
      const expiresAt = Number.isFinite(capped) ? new Date(capped) : null;
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
      expiresAt: iso(key.expiresAt),
      createdAt: now.toISOString(),
    };
  }

  async revokeKey(ctx: DomainContext, id: string): Promise<{ id: string; revoked: boolean }> {
    requirePermission(ctx, 'manage:api-keys');
    const stopped: string[] = [];
    await ctx.em.transactional(async (tx) => {
      const key = typeof id === 'string' && id.length <= 40 ? await tx.findOne(ApiKey, { id }) : null;
      if (!key) throw new DomainError('NOT_FOUND', `API key '${String(id).slice(0, 40)}' not found`, { details: { id } });
      if (!ctx.principal!.isAdmin && key.createdBy !== ctx.principal!.keyId) {
        throw new DomainError('AUTHORIZATION_ERROR', 'Only the admin or the issuer can revoke this key');
      }
      // Revocation cascades: every key issued by this one, and by those, is revoked with it.
      const revokedAt = clock.now();
      const seen = new Set<string>();
      let generation: ApiKey[] = [key];
      while (generation.length) {
        for (const k of generation) {
          seen.add(k.id);
          stopped.push(k.id);
          if (k.revokedAt) continue;
          k.revokedAt = revokedAt;
          this.auditTrail?.record(
            tx as EntityManager,
            actorOf(ctx),
            { action: 'api_key.revoke', entityType: 'api_key', entityId: k.id },
            { revokedAt: null },
            { revokedAt: revokedAt.toISOString(), ...(k === key ? {} : { cascadedFrom: key.id }) },
          );
        }
        const children: ApiKey[] = await tx.find(ApiKey, { createdBy: { $in: generation.map((k) => k.id) } });
        generation = children.filter((c) => !seen.has(c.id));
      }
    });
    this.cache.clear();
    // Open sockets and subscriptions of these keys, here and on every instance, are closed now.
    await this.onRevoked?.(stopped);
    return { id, revoked: true };
  }
}

export interface Lineage {
  valid: boolean;
  /** The earliest expiry along the chain (Infinity when none). */
  until: number;
  /** Why not valid: the key or an issuer above it is revoked or expired, or the chain is broken. */
  reason?: 'revoked' | 'expired' | 'issuer revoked' | 'issuer expired' | 'unknown issuer' | 'lineage too deep';
  /** The topmost issued key of the chain (the key itself when the admin issued it): whose plan budget it spends. */
  root?: ApiKey;
}

async function lineageOf(em: EntityManager, row: ApiKey, now: number): Promise<Lineage> {
  let until = Infinity;
  let key: ApiKey | null = row;
  let root: ApiKey = row;
  for (let depth = 0; key; depth++) {
    root = key;
    if (depth > MAX_LINEAGE_DEPTH) return { valid: false, until: Infinity, reason: 'lineage too deep' };
    if (key.revokedAt) return { valid: false, until: Infinity, reason: depth ? 'issuer revoked' : 'revoked' };
    const expires = key.expiresAt?.getTime() ?? Infinity;
    if (expires <= now) return { valid: false, until: Infinity, reason: depth ? 'issuer expired' : 'expired' };
    until = Math.min(until, expires);
    // Keys issued by the configured ADMIN_API_KEY carry its principal id, which has no row.
    if (!key.createdBy || key.createdBy === row.id) break;
    const issuerId: string = key.createdBy;
    key = await em.findOne(ApiKey, { id: issuerId });
    if (!key && issuerId !== ADMIN_PRINCIPAL_ID) return { valid: false, until: Infinity, reason: 'unknown issuer' };
  }
  return { valid: true, until, root };
}

export type KeyResolution = { principal: Principal; reason?: undefined } | { principal: null; reason: NonNullable<Lineage['reason']> | 'unknown key' };

/**
 * The principal a key id stands for right now, for work done on a key's behalf later (webhook
 * deliveries, report generation): the same checks as authentication, by id instead of secret.
 */
export async function principalOfKeyId(em: EntityManager, keyId: string | null | undefined, now = clock.nowMs()): Promise<KeyResolution> {
  if (keyId === ADMIN_PRINCIPAL_ID) return { principal: AuthService.adminPrincipal() };
  const row = keyId ? await em.findOne(ApiKey, { id: keyId }) : null;
  if (!row) return { principal: null, reason: 'unknown key' };
  const lineage = await lineageOf(em, row, now);
  if (!lineage.valid) return { principal: null, reason: lineage.reason ?? 'revoked' };
  return { principal: principalOfRow(row, lineage.until, lineage.root) };
}

const principalOfRow = (row: ApiKey, until = Infinity, root?: ApiKey): Principal => ({
  keyId: row.id,
  name: row.name,
  permissions: new Set(row.permissions.filter(isPermission)),
  isAdmin: row.isAdmin,
  plan: row.plan,
  revocable: true,
  ...(Number.isFinite(until) ? { validUntil: until } : {}),
  ...(root && root.id !== row.id ? { budget: { keyId: root.id, plan: root.plan } } : {}),
});

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
