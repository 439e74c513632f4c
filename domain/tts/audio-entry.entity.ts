import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';
import { clock } from '../clock';

/** One generated audio file: its three hashes, the options that shaped it, and where its bytes are. */
@Entity({ tableName: 'audio_entries' })
export class AudioEntry {
  /** The direct hash; the public identifier of the audio. */
  @PrimaryKey({ type: 'string', length: 64 })
  hash!: string;

  @Index()
  @Property({ type: 'string', length: 64 })
  contentHash!: string;

  @Index()
  @Property({ type: 'string', length: 64 })
  semanticHash!: string;

  @Property({ type: 'string', length: 20 })
  provider!: string;

  @Property({ type: 'string', length: 100 })
  voice!: string;

  @Property({ type: 'string', length: 20 })
  language!: string;

  @Property({ type: 'string', length: 8 })
  format!: string;

  @Property({ type: 'string', length: 16 })
  quality!: string;

  @Property({ type: 'double' })
  speed!: number;

  /** The full canonical audio-affecting options (emotion, pitch, …). */
  @Property({ type: 'json' })
  options!: Record<string, unknown>;

  @Property({ type: 'text' })
  originalText!: string;

  @Property({ type: 'text' })
  normalizedText!: string;

  @Property({ type: 'double' })
  duration!: number;

  @Property({ type: 'integer' })
  fileSize!: number;

  @Property({ type: 'integer' })
  sampleRate!: number;

  @Property({ type: 'integer' })
  bitrate!: number;

  /** sha256 of the bytes: the blob-store key, and the check that what we serve is what we stored. */
  @Property({ type: 'string', length: 64 })
  blobKey!: string;

  @Property({ type: 'double' })
  costAmount!: number;

  @Property({ type: 'string', length: 3, default: 'USD' })
  costCurrency = 'USD';

  @Property({ type: 'integer' })
  charactersCharged!: number;

  @Property({ type: 'json', nullable: true })
  requestMetadata?: Record<string, unknown> | null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  generatedAt: Date = clock.now();

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  lastAccessedAt: Date = clock.now();

  @Property({ type: 'integer', default: 0 })
  accessCount = 0;

  @Index()
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  expiresAt?: Date | null;
}
