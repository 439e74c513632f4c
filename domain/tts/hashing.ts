// The three hashes of a request (direct, content, semantic): computing them, and finding cached audio under each.
import { z } from 'zod';
import type { DomainContext } from '../context';
import { DomainError } from '../errors';
import type { Links } from '../links';
import { parseInput } from '../validation';
import type { TtsAccessPolicy } from './access';
import type { ProviderId } from './catalogue';
import { resolveRequest, TtsOptionsSchema } from './request';
import type { StoredAudio } from './stored-audio';
import { computeHashes, HASH_MODES, type HashMode } from './text';

export const HashRequestSchema = z.object({
  text: z.string({ error: 'text is required and must be a string' }).min(1, 'must not be empty').max(100_000),
  options: TtsOptionsSchema.optional(),
});
const HashModeSchema = z.enum(['direct', 'content', 'semantic']);
export const HashLookupSchema = HashRequestSchema.extend({ hashMode: HashModeSchema.default('direct'), allowFallback: z.boolean().optional() });
export const HashExistsSchema = HashRequestSchema.extend({ hashMode: HashModeSchema.default('direct') });
const HASH_PARAM = /^[0-9a-f]{64}$/;

/** Refuses anything but a direct hash as an audio identifier, before it reaches a query. */
/** Whether a string has the form of an audio hash (64 lowercase hexadecimal characters). */
export function isAudioHash(hash: string): boolean {
  return HASH_PARAM.test(hash);
}

export function assertAudioHash(hash: string): void {
  if (!isAudioHash(hash)) {
    throw new DomainError('VALIDATION_ERROR', 'hash must be 64 lowercase hexadecimal characters', {
      fields: [{ field: 'hash', message: 'must be 64 lowercase hexadecimal characters' }],
      details: { hash: hash.slice(0, 100) },
    });
  }
}

export class HashService {
  constructor(private readonly deps: { access: TtsAccessPolicy; defaultProvider: ProviderId; stored: StoredAudio; links: Links }) {}

  private resolve(raw: { text: string; options?: unknown }) {
    return resolveRequest({ text: raw.text, options: raw.options }, this.deps.defaultProvider);
  }

  hashInfo(ctx: DomainContext, raw: unknown) {
    this.deps.access.require(ctx, 'tts:generate');
    const input = parseInput(HashRequestSchema, raw);
    const req = this.resolve(input);
    return { hashes: computeHashes(req.text, req.options), text: { original: req.text, length: [...req.text].length } };
  }

  async hashLookup(ctx: DomainContext, raw: unknown) {
    this.deps.access.require(ctx, 'tts:generate');
    const input = parseInput(HashLookupSchema, raw);
    const req = this.resolve(input);
    const hashes = computeHashes(req.text, req.options);
    const modes: HashMode[] = input.allowFallback ? [input.hashMode, ...HASH_MODES.filter((m) => m !== input.hashMode)] : [input.hashMode];
    for (const mode of modes) {
      const e = await this.deps.stored.findLive(ctx.em, hashes[mode], mode);
      if (e) {
        return {
          found: true as const,
          hash: e.hash,
          mode,
          // Exact text matches are certain; normalised and spoken-form matches only sound alike.
          confidence: mode === 'direct' ? 1 : mode === 'content' ? 0.95 : 0.85,
          audioUrl: this.deps.links.audio(e.hash),
          metadata: { provider: e.provider, voice: e.voice, duration: e.duration, fileSize: e.fileSize, generatedAt: e.generatedAt.toISOString() },
        };
      }
    }
    return {
      found: false as const,
      hashes,
      message: input.allowFallback ? 'No cached audio under any hash mode' : `No cached audio under the ${input.hashMode} hash`,
    };
  }

  async hashExists(ctx: DomainContext, raw: unknown) {
    this.deps.access.require(ctx, 'tts:generate');
    const input = parseInput(HashExistsSchema, raw);
    const req = this.resolve(input);
    const hashes = computeHashes(req.text, req.options);
    const e = await this.deps.stored.findLive(ctx.em, hashes[input.hashMode], input.hashMode);
    return { exists: !!e, hashMode: input.hashMode, hashes };
  }
}
