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

const README = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
const section = (heading: string) => {
  const start = README.indexOf(`\n## ${heading}\n`);
  expect(start).toBeGreaterThan(0);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end < 0 ? undefined : end);
};
const LIMITS = section('Limits');

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
  expect(checked).toEqual(expect.arrayContaining(['API_RATE_LIMIT', 'TTS_CHARS_PER_MINUTE', 'READ_MODEL_CACHE_BYTES', 'AUDIO_HOT_CACHE_BYTES', 'GRAPHQL_MAX_RESULT_BYTES']));
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
  expect(LIMITS).toContain(`depth ${GRAPHQL_LIMITS.maxDepth}, aliases ${GRAPHQL_LIMITS.maxAliases}, tokens ${GRAPHQL_LIMITS.maxTokens.toLocaleString('en-US')}, directives ${GRAPHQL_LIMITS.maxDirectives}`);
  expect(LIMITS).toContain(`| ${GRAPHQL_LIMITS.maxCost.toLocaleString('en-US')} |`);
  expect(LIMITS).toContain(`(${DEFAULT_MAX_RESULT_BYTES / 1024 ** 2} MiB)`);
  expect(LIMITS).toContain(`≤ ${GRAPHQL_WS_MAX_PAYLOAD_BYTES / 1024} KiB (GraphQL); ≤ ${WS_LIMITS.maxPayloadBytes / 1024} KiB at ≤ ${WS_LIMITS.messagesPerSecond} messages/s (dashboard)`);
});

test('every variable the configuration reads is documented in README', () => {
  const documented = new Set([...README.matchAll(/`([A-Z][A-Z0-9_]{2,})`/g)].map((m) => m[1]));
  const missing = Object.keys(configDefaults()).filter((name) => !documented.has(name) && name !== 'NODE_ENV');
  expect(missing).toEqual([]);
});
