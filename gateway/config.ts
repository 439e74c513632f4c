import { DEFAULT_RESILIENCE } from '../domain/tts/providers/resilience';
import { DEFAULT_AUDIO_WORKER_IDLE_MS, DEFAULT_AUDIO_WORKER_NICE, defaultAudioWorkerCount } from '../domain/tts/audio-workers';
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

const optionalUrl = z.string().url().optional();

function isTrustProxy(v: string): boolean {
  if (/^\d+$/.test(v)) return true;
  return v.split(',').every((part) => {
    const [addr, bits, extra] = part.trim().split('/');
    if (extra !== undefined) return false;
    if (bits === undefined && ['loopback', 'linklocal', 'uniquelocal'].includes(addr)) return true;
    const family = isIP(addr);
    if (!family) return false;
    return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
  });
}

/** Every environment variable the gateway reads, in one place (see shared/design.md). */
const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  ADMIN_API_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  API_KEY: z.string().min(1).optional(),
  API_RATE_LIMIT: z.coerce.number().int().positive().default(100),
  PROVIDER_A_API_KEY: z.string().min(1).optional(),
  PROVIDER_A_BASE_URL: optionalUrl,
  PROVIDER_B_API_KEY: z.string().min(1).optional(),
  PROVIDER_B_BASE_URL: optionalUrl,
  PROVIDER_C_API_KEY: z.string().min(1).optional(),
  PROVIDER_C_REGION: z.string().min(1).optional(),
  PROVIDER_C_BASE_URL: optionalUrl,
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool.default(false),
  /** Active compliance webhooks one key may have (each multiplies every event's deliveries). */
  WEBHOOK_MAX_PER_KEY: z.coerce.number().int().min(1).max(100_000).default(25),
  MOCK_LATENCY_MS: z.coerce.number().int().min(0).default(0),
  // Resilience of the calls to real vendors (all of them; built-in defaults in domain/tts/providers/resilience.ts).
  PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).optional(),
  PROVIDER_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).optional(),
  PROVIDER_MAX_CONCURRENCY: z.coerce.number().int().min(1).max(1000).optional(),
  PROVIDER_FAILURE_THRESHOLD: z.coerce.number().int().min(1).max(1000).optional(),
  PROVIDER_COOLDOWN_MS: z.coerce.number().int().min(0).max(3_600_000).optional(),
  PROVIDER_B_VOICE_IDS: z.string().optional(),
  /** How often live channels re-read their callers' keys from the database (the backstop to revocation events). */
  PRINCIPAL_RECHECK_MS: z.coerce.number().int().min(100).max(3_600_000).default(2500),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NODE_ENV: z.string().default('development'),
  /** Prices per million characters, e.g. `{"provider_b":{"default":40}}`; merged over the built-in table. */
  TTS_PRICES: z.string().optional(),
  CORS_ORIGINS: z.string().optional(),
  /** Byte budget of the kept answers of requirement reads (REST, GraphQL, tRPC); 0 keeps none. */
  READ_MODEL_CACHE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(32 * 1024 * 1024),
  /** Connections the gateway opens to the database at most. */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  DATABASE_PREPARED_STATEMENTS: bool.default(true),
  /** Byte budget of the in-memory hot tier of the audio cache. */
  AUDIO_HOT_CACHE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(64 * 1024 * 1024),
  /** Where audio bytes live: the filesystem under DATA_DIR, or the shared database (several instances). */
  BLOB_STORE: z.enum(['fs', 'database']).optional(),
  /**
   * Behind a load balancer: which proxies' X-Forwarded-For to believe, so per-IP limits see the
   * client and not the balancer. Express's `trust proxy`: a hop count, or addresses/subnets/
   * `loopback`/`uniquelocal`, comma-separated. Unset: the socket's address is the client.
   */
  /** The organisation whose records the reports are, printed on every report. */
  ORGANISATION_NAME: z.string().max(200, 'must be at most 200 characters').optional(),
  /** Characters of speech a client (API key, else address) may have generated per minute; cache hits are free. */
  TTS_CHARS_PER_MINUTE: z.coerce.number().int().min(1).default(200_000),
  /** Generations of one client that run at once (more wait, up to four times as many; beyond, 429). */
  TTS_MAX_CONCURRENT_PER_CLIENT: z.coerce.number().int().min(1).max(1000).default(2),
  /** Generations that run at once in this process. */
  TTS_MAX_CONCURRENT_GENERATIONS: z.coerce.number().int().min(1).max(1000).default(4),
  /** Generations waiting for a place, server-wide; a full queue answers 503 with Retry-After. */
  TTS_ADMISSION_QUEUE: z.coerce.number().int().min(0).max(100_000).default(64),
  /** Threads for mock synthesis and MP3/Ogg encoding, off the event loop (0: on it). Default min(2, cores). */
  AUDIO_WORKERS: z.coerce.number().int().min(0).max(64).optional(),
  /** An audio thread without work for this long ends, giving its memory back. */
  AUDIO_WORKER_IDLE_MS: z.coerce.number().int().min(100).max(3_600_000).default(DEFAULT_AUDIO_WORKER_IDLE_MS),
  /** Nice value of the audio threads (Linux, per thread): 19 gives the event loop the CPU first. */
  AUDIO_WORKER_NICE: z.coerce.number().int().min(0).max(19).default(DEFAULT_AUDIO_WORKER_NICE),
  /** Largest JSON answer of one GraphQL operation (413 PAYLOAD_TOO_LARGE beyond); the cost limit refuses most such queries first. */
  GRAPHQL_MAX_RESULT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(5 * 1024 * 1024),
  /** Bytes of automatic-persisted-query texts kept in memory (least recently used go first); 0 turns APQ off. */
  GRAPHQL_APQ_CACHE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(8 * 1024 * 1024),
  /** How long a registered APQ text is kept (seconds), in memory and in Redis. */
  GRAPHQL_APQ_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(30 * 24 * 3600)
    .default(24 * 3600),
  /** How long the embedded database's process is restarted (with back-off) before the gateway gives up and exits non-zero. */
  EMBEDDED_DATABASE_RESTART_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
  /** A database that answers nothing for this long (and fails a probe) counts as down: 503 until it answers again. */
  DATABASE_HANG_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
  TRUST_PROXY: z.string().refine(isTrustProxy, 'must be a hop count or comma-separated addresses, subnets or loopback/linklocal/uniquelocal').optional(),
});

export type GatewayConfig = ReturnType<typeof parseConfig>;

/** Each variable's default as the gateway applies it when the variable is unset (README's tables name them). */
export function configDefaults(): Record<string, unknown> {
  // The vendor variables are optional here: unset, the built-in resilience defaults apply.
  return {
    ...EnvSchema.parse({}),
    PROVIDER_TIMEOUT_MS: DEFAULT_RESILIENCE.timeoutMs,
    PROVIDER_MAX_ATTEMPTS: DEFAULT_RESILIENCE.maxAttempts,
    PROVIDER_MAX_CONCURRENCY: DEFAULT_RESILIENCE.maxConcurrency,
    PROVIDER_FAILURE_THRESHOLD: DEFAULT_RESILIENCE.failureThreshold,
    PROVIDER_COOLDOWN_MS: DEFAULT_RESILIENCE.cooldownMs,
  };
}

export class ConfigError extends Error {}

export function parseConfig(env: NodeJS.ProcessEnv = process.env) {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`Invalid configuration: ${String(issue.path[0])} ${issue.message}`);
  }
  const c = parsed.data;
  let prices: Record<string, Record<string, number>> = {};
  if (c.TTS_PRICES) {
    try {
      prices = z.record(z.string(), z.record(z.string(), z.number().min(0))).parse(JSON.parse(c.TTS_PRICES));
    } catch {
      throw new ConfigError('Invalid configuration: TTS_PRICES must be JSON like {"provider_b":{"default":40}}');
    }
  }
  let voiceIds: Record<string, string> | undefined;
  if (c.PROVIDER_B_VOICE_IDS) {
    try {
      voiceIds = z.record(z.string(), z.string().min(1)).parse(JSON.parse(c.PROVIDER_B_VOICE_IDS));
    } catch {
      throw new ConfigError('Invalid configuration: PROVIDER_B_VOICE_IDS must be JSON like {"barbershop-man":"<vendor voice id>"}');
    }
  }
  return {
    port: c.PORT,
    host: c.HOST,
    dataDir: path.resolve(c.DATA_DIR),
    databaseUrl: c.DATABASE_URL,
    redisUrl: c.REDIS_URL,
    adminApiKey: c.ADMIN_API_KEY,
    ttsApiKey: c.API_KEY,
    ttsRateLimitPerMinute: c.API_RATE_LIMIT,
    providers: {
      provider_a: { apiKey: c.PROVIDER_A_API_KEY, baseUrl: c.PROVIDER_A_BASE_URL ?? 'https://api.openai.com' },
      provider_b: { apiKey: c.PROVIDER_B_API_KEY, baseUrl: c.PROVIDER_B_BASE_URL ?? 'https://api.cartesia.ai', voiceIds },
      provider_c: {
        apiKey: c.PROVIDER_C_API_KEY,
        region: c.PROVIDER_C_REGION,
        baseUrl: c.PROVIDER_C_BASE_URL ?? (c.PROVIDER_C_REGION ? `https://${c.PROVIDER_C_REGION}.tts.speech.microsoft.com` : undefined),
      },
      resilience: {
        timeoutMs: c.PROVIDER_TIMEOUT_MS,
        maxAttempts: c.PROVIDER_MAX_ATTEMPTS,
        maxConcurrency: c.PROVIDER_MAX_CONCURRENCY,
        failureThreshold: c.PROVIDER_FAILURE_THRESHOLD,
        cooldownMs: c.PROVIDER_COOLDOWN_MS,
      },
    },
    webhookAllowPrivateNetworks: c.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    webhookMaxPerKey: c.WEBHOOK_MAX_PER_KEY,
    mockLatencyMs: c.MOCK_LATENCY_MS,
    logLevel: c.LOG_LEVEL,
    principalRecheckMs: c.PRINCIPAL_RECHECK_MS,
    production: c.NODE_ENV === 'production',
    prices,
    corsOrigins: c.CORS_ORIGINS
      ? c.CORS_ORIGINS.split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : undefined,
    hotCacheBytes: c.AUDIO_HOT_CACHE_BYTES,
    readModelCacheBytes: c.READ_MODEL_CACHE_BYTES,
    databasePoolSize: c.DATABASE_POOL_SIZE,
    databasePreparedStatements: c.DATABASE_PREPARED_STATEMENTS,
    blobStore: c.BLOB_STORE ?? (c.DATABASE_URL && c.REDIS_URL ? 'database' : 'fs'),
    organisationName: c.ORGANISATION_NAME?.trim() || undefined,
    databaseHangMs: c.DATABASE_HANG_MS,
    embeddedRestartMs: c.EMBEDDED_DATABASE_RESTART_MS,
    graphqlMaxResultBytes: c.GRAPHQL_MAX_RESULT_BYTES,
    graphqlApq: { maxBytes: c.GRAPHQL_APQ_CACHE_BYTES, ttlSeconds: c.GRAPHQL_APQ_TTL_SECONDS },
    audioWorkers: { size: c.AUDIO_WORKERS ?? defaultAudioWorkerCount(), idleMs: c.AUDIO_WORKER_IDLE_MS, nice: c.AUDIO_WORKER_NICE, keepWarm: 1 },
    speechLimits: {
      charsPerMinute: c.TTS_CHARS_PER_MINUTE,
      perClient: c.TTS_MAX_CONCURRENT_PER_CLIENT,
      concurrent: c.TTS_MAX_CONCURRENT_GENERATIONS,
      queue: c.TTS_ADMISSION_QUEUE,
    },
    trustProxy: c.TRUST_PROXY === undefined ? false : /^\d+$/.test(c.TRUST_PROXY) ? Number(c.TRUST_PROXY) : c.TRUST_PROXY,
  } as const;
}

/**
 * Every secret the configuration holds: redacted, in any encoding, from vendor error text and
 * from every log line.
 */
export function configuredSecrets(config: Pick<GatewayConfig, 'adminApiKey' | 'ttsApiKey' | 'providers' | 'databaseUrl' | 'redisUrl'>): string[] {
  const passwordOf = (url?: string) => {
    if (!url) return undefined;
    try {
      return decodeURIComponent(new URL(url).password) || undefined;
    } catch {
      return undefined;
    }
  };
  return [
    config.adminApiKey,
    config.ttsApiKey,
    config.providers.provider_a.apiKey,
    config.providers.provider_b.apiKey,
    config.providers.provider_c.apiKey,
    passwordOf(config.databaseUrl),
    passwordOf(config.redisUrl),
  ].filter((s): s is string => !!s);
}
