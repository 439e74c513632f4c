/**
 * README's limits are the code's: every default it names for a variable (`NAME` (value)) is the
 * default the configuration applies, and every fixed limit it states is the constant the code
 * enforces. A limit changed in one place and not the other fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { configDefaults } from '../../gateway/config';
import { MAX_JSON_BODY } from '../../gateway/front/body';
import { DEFAULT_MAX_RESULT_BYTES, GRAPHQL_LIMITS } from '../../gateway/graphql/parts/limits';
import { GRAPHQL_WS_MAX_PAYLOAD_BYTES } from '../../gateway/graphql/ws';
import { WS_LIMITS } from '../../gateway/live';
import { TRPC_MAX_BATCH } from '../../gateway/start/transports';
import { MAX_BATCH_SIZE, MAX_PAGE_SIZE } from '../../domain/compliance/requirements/requirement.inputs';
import { DeliveriesQuery } from '../../domain/compliance/webhooks/webhook.service';
import { MAX_TEXT_LENGTH } from '../../domain/tts/request';
import { CHUNK_CONCURRENCY } from '../../domain/tts/generation';
import { ENCODER_BLOCK_SAMPLES } from '../../domain/tts/audio/codec';
import { DEFAULT_RESILIENCE } from '../../domain/tts/providers/resilience';
import { DEFAULT_GATE_SETTINGS } from '../../domain/webhooks/delivery-gate';
import { DEFAULT_HEAVY_SLOTS } from '../../domain/jobs/heavy-work';
import { MAX_DOCUMENT_NESTING } from '../../gateway/graphql/parts/input-depth';
import { PLAN_LIMITS } from '../../gateway/rate-limit';

const README = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
const section = (heading: string) => {
  const start = README.indexOf(`\n## ${heading}\n`);
  expect(start).toBeGreaterThan(0);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end < 0 ? undefined : end);
};
const LIMITS = section('Limits');
const CONFIGURATION = section('Configuration');

/** "64 MiB" → bytes, "200000" or "15,000" → the number; anything else (a formula) is not a number. */
function valueOf(text: string): number | undefined {
  const m = /^([\d,]+)(?:\s*(KiB|MiB|GiB))?$/.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1].replace(/,/g, ''));
  const unit = { KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 }[m[2] as 'KiB'] ?? 1;
  return n * unit;
}

test('every variable the Limits table names has the default the table says', () => {
  const defaults = configDefaults();
  const named = [...LIMITS.matchAll(/`([A-Z][A-Z0-9_]+)`\s*\(([^)]+)\)/g)];
  expect(named.length).toBeGreaterThanOrEqual(10);
  const checked: string[] = [];
  for (const [, name, stated] of named) {
    const value = valueOf(stated);
    if (value === undefined) continue; // a formula, e.g. min(2, cores): computed at start
    expect([name, defaults[name]]).toEqual([name, value]);
    checked.push(name);
  }
  expect(checked).toEqual(
    expect.arrayContaining(['API_RATE_LIMIT', 'TTS_CHARS_PER_MINUTE', 'READ_MODEL_CACHE_BYTES', 'AUDIO_HOT_CACHE_BYTES', 'GRAPHQL_MAX_RESULT_BYTES']),
  );
});

test('the fixed limits README states are the ones the code enforces', () => {
  const everyMention = (pattern: RegExp) => [...README.matchAll(pattern)].map((m) => valueOf(m[1]));
  const pageLimits = everyMention(/list `limit` ≤ ([\d,]+)/g);
  expect(pageLimits.length).toBeGreaterThanOrEqual(2);
  for (const n of pageLimits) expect(n).toBe(MAX_PAGE_SIZE);
  for (const n of everyMention(/deliveries ≤ ([\d,]+)/g)) expect(n).toBe(DeliveriesQuery.shape.limit.unwrap().maxValue);
  for (const n of everyMention(/batch(?:es| endpoints) ≤ ([\d,]+) items/g)) expect(n).toBe(MAX_BATCH_SIZE);
  for (const n of everyMention(/TTS text ≤ ([\d,]+) characters/g)) expect(n).toBe(MAX_TEXT_LENGTH);
  expect(everyMention(/JSON(?: bodies)? ≤ (\d+) MB/g)).toEqual(expect.arrayContaining([Number(MAX_JSON_BODY.replace('mb', ''))]));
  expect(MAX_JSON_BODY).toBe('1mb');
  expect(LIMITS).toContain(`| tRPC batch | calls in one batch | ${TRPC_MAX_BATCH} |`);
  expect(LIMITS).toContain(
    `depth ${GRAPHQL_LIMITS.maxDepth}, aliases ${GRAPHQL_LIMITS.maxAliases}, tokens ${GRAPHQL_LIMITS.maxTokens.toLocaleString('en-US')}, directives ${GRAPHQL_LIMITS.maxDirectives}`,
  );
  expect(LIMITS).toContain(`| ${GRAPHQL_LIMITS.maxCost.toLocaleString('en-US')} |`);
  expect(LIMITS).toContain(`(${DEFAULT_MAX_RESULT_BYTES / 1024 ** 2} MiB)`);
  expect(LIMITS).toContain(
    `≤ ${GRAPHQL_WS_MAX_PAYLOAD_BYTES / 1024} KiB (GraphQL); ≤ ${WS_LIMITS.maxPayloadBytes / 1024} KiB at ≤ ${WS_LIMITS.messagesPerSecond} messages/s (dashboard)`,
  );
});

test('every variable the configuration reads is documented in README', () => {
  const documented = new Set([...README.matchAll(/`([A-Z][A-Z0-9_]{2,})`/g)].map((m) => m[1]));
  const missing = Object.keys(configDefaults()).filter((name) => !documented.has(name) && name !== 'NODE_ENV');
  expect(missing).toEqual([]);
});

/** The variables `EnvSchema` declares in gateway/config.ts, optional ones included (configDefaults() has only those with a default). */
function declaredVariables(): string[] {
  const source = fs.readFileSync(path.join(__dirname, '..', '..', 'gateway', 'config.ts'), 'utf8');
  const start = source.indexOf('const EnvSchema = z.object({');
  const end = source.indexOf('\n});', start);
  expect(start).toBeGreaterThan(0);
  return [...source.slice(start, end).matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]);
}

/** README's configuration table: each row's variables and the default it states for each. */
function configurationRows(): { names: string[]; stated: string[] }[] {
  return CONFIGURATION.split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line.split(' | ');
      const names = [...cells[0].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]);
      const last = cells[cells.length - 1].replace(/\s*\|\s*$/, '');
      return { names, stated: last.split(/,\s+/) };
    });
}

test('every variable the configuration declares has a row in the configuration table of README', () => {
  const documented = new Set(configurationRows().flatMap((r) => r.names));
  const declared = declaredVariables();
  expect(declared.length).toBeGreaterThanOrEqual(40);
  expect(declared.filter((name) => !documented.has(name))).toEqual([]);
});

test('every default the configuration table states is the one the configuration applies', () => {
  const defaults = configDefaults();
  const checked: string[] = [];
  for (const { names, stated } of configurationRows()) {
    if (stated.length !== names.length) continue; // one sentence for several variables (e.g. "unset")
    names.forEach((name, i) => {
      if (!(name in defaults)) return; // no default in the schema: unset, or derived (a vendor's URL)
      const text = stated[i].trim();
      const literal = /^`([^`]+)`$/.exec(text)?.[1];
      const expected = literal === undefined ? valueOf(text) : literal === 'true' || literal === 'false' ? literal === 'true' : (valueOf(literal) ?? literal);
      if (expected === undefined) return; // a formula, e.g. min(2, cores)
      expect([name, defaults[name]]).toEqual([name, expected]);
      checked.push(name);
    });
  }
  expect(checked).toEqual(
    expect.arrayContaining([
      'PORT',
      'HOST',
      'DATA_DIR',
      'LOG_LEVEL',
      'WEBHOOK_MAX_PER_KEY',
      'EMBEDDED_DATABASE_RESTART_MS',
      'DATABASE_HANG_MS',
      'PROVIDER_TIMEOUT_MS',
      'PROVIDER_MAX_ATTEMPTS',
      'PROVIDER_COOLDOWN_MS',
      'AUDIO_HOT_CACHE_BYTES',
      'READ_MODEL_CACHE_BYTES',
      'GRAPHQL_MAX_RESULT_BYTES',
      'NODE_ENV',
    ]),
  );
  // Every variable with a default is checked, but those the table states as a formula.
  expect(Object.keys(defaults).filter((name) => !checked.includes(name))).toEqual([]);
});

test('the limits README states in prose and in the Limits table are the constants the code uses', () => {
  const r = DEFAULT_RESILIENCE;
  expect(README).toContain(`every upstream attempt has a\n${r.timeoutMs / 1000} s timeout and a call makes up to ${r.maxAttempts} attempts`);
  expect(README).toContain(`\`Retry-After\`\nhonoured up to ${r.maxRetryAfterMs / 1000} s)`);
  expect(README).toContain(
    `(opens after ${r.failureThreshold} consecutive failures, tries again after ${r.cooldownMs / 1000} s) and at most ${r.maxConcurrency} calls in flight`,
  );
  expect(LIMITS).toContain(
    `chunks made ${CHUNK_CONCURRENCY} at once and at most ${CHUNK_CONCURRENCY} ahead of the encoder; the encoder fed in blocks of ${ENCODER_BLOCK_SAMPLES.toLocaleString('en-US')} samples`,
  );
  const g = DEFAULT_GATE_SETTINGS;
  expect(LIMITS).toContain(
    `a receiver failing ${g.breakerThreshold} times in a row is left alone ${g.cooldownMs / 1000} s (doubling to ${g.maxCooldownMs / 60_000} min), and gets a ${g.shortTimeoutMs / 1000} s timeout after ${g.shortTimeoutAfter} failures`,
  );
  expect(LIMITS).toContain(`\`WEBHOOK_MAX_PER_KEY\` (${configDefaults().WEBHOOK_MAX_PER_KEY as number}); ${g.perReceiver}; ${g.perOwner} |`);
  const slots = new Set(Object.values(DEFAULT_HEAVY_SLOTS));
  expect(slots.size).toBe(1);
  expect(LIMITS).toContain(`| ${[...slots][0]} of each kind |`);
  expect(LIMITS).toContain(`standard ${PLAN_LIMITS.standard}, premium ${PLAN_LIMITS.premium}, enterprise and admin keys unlimited`);
  expect(PLAN_LIMITS.enterprise).toBe(Infinity);
  expect(LIMITS).toContain(`nested more than ${MAX_DOCUMENT_NESTING} deep`);
  // The summary under Security repeats the GraphQL document limits.
  expect(README).toContain(
    `GraphQL depth ≤ ${GRAPHQL_LIMITS.maxDepth}, aliases ≤ ${GRAPHQL_LIMITS.maxAliases},\nlist-aware cost ≤ ${GRAPHQL_LIMITS.maxCost.toLocaleString('en-US')}`,
  );
  expect(README).toContain(`tokens ≤ ${GRAPHQL_LIMITS.maxTokens.toLocaleString('en-US')}`);
});
