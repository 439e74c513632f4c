import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AudioBlob } from '../blob.entity';
import { clock } from '../../clock';

export const blobKeyOf = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * Where audio bytes live, addressed by the sha256 of their content. `get` re-checks the hash,
 * so a file damaged on disk is reported as missing (and regenerated) instead of being served.
 */
export interface BlobStore {
  readonly kind: 'fs' | 'database';
  put(key: string, data: Buffer): Promise<void>;
  get(key: string): Promise<Buffer | null>;
  delete(key: string): Promise<void>;
  clear(): Promise<void>;
}

export class CorruptBlobError extends Error {}

export class FsBlobStore implements BlobStore {
  readonly kind = 'fs' as const;

  constructor(private readonly root: string) {}

  private pathOf(key: string) {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new Error('invalid blob key');
    return path.join(this.root, key.slice(0, 2), key);
  }

  async put(key: string, data: Buffer): Promise<void> {
    const file = this.pathOf(key);
    await fs.mkdir(path.dirname(file), { recursive: true });
    // Write-then-rename: a reader never sees half a file, a crash never leaves one.
    const tmp = `${file}.${process.pid}.${clock.nowMs()}.tmp`;
    await fs.writeFile(tmp, data);
    await fs.rename(tmp, file);
  }

  async get(key: string): Promise<Buffer | null> {
    let data: Buffer;
    try {
      data = await fs.readFile(this.pathOf(key));
    } catch (err: any) {
      if (err.code === 'ENOENT') return null;
      throw err;
    }
    if (blobKeyOf(data) !== key) throw new CorruptBlobError(`blob ${key} failed its integrity check`);
    return data;
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.pathOf(key), { force: true });
  }

  async clear(): Promise<void> {
    await fs.rm(this.root, { recursive: true, force: true });
  }
}

/** Bytes in the shared database, so every instance serves audio any instance generated. */
export class DatabaseBlobStore implements BlobStore {
  readonly kind = 'database' as const;

  constructor(private readonly rootEm: EntityManager) {}

  async put(key: string, data: Buffer): Promise<void> {
    await this.rootEm
      .getConnection()
      .execute(
        'insert into audio_blobs (key, data, size, created_at) values (?, ?, ?, ?) on conflict (key) do nothing',
        [key, data, data.length, clock.now()],
      );
  }

  async get(key: string): Promise<Buffer | null> {
    const rows = await this.rootEm.getConnection().execute<{ data: Buffer }[]>('select data from audio_blobs where key = ?', [key]);
    if (!rows.length) return null;
    const data = Buffer.from(rows[0].data);
    if (blobKeyOf(data) !== key) throw new CorruptBlobError(`blob ${key} failed its integrity check`);
    return data;
  }

  async delete(key: string): Promise<void> {
    await this.rootEm.fork().nativeDelete(AudioBlob, { key });
  }

  async clear(): Promise<void> {
    await this.rootEm.fork().nativeDelete(AudioBlob, {});
  }
}
