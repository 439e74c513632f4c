import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { clock } from '../clock';

/** Audio bytes kept in the shared database, for deployments of several instances without a shared disk. */
@Entity({ tableName: 'audio_blobs' })
export class AudioBlob {
  @PrimaryKey({ type: 'string', length: 64 })
  key!: string;

  @Property({ type: 'blob', lazy: true })
  data!: Buffer;

  @Property({ type: 'integer' })
  size!: number;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = clock.now();
}
