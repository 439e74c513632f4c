import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AudioBlob } from '../blob.entity';
import { clock } from '../../clock';

export const blobKeyOf = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * A blob written as it is made (a long encode), never whole in memory: appended, readable back while
 * it grows, and stored under the hash of its content by `commit`.
 */
export interface BlobWriter {
  /** Bytes appended so far. */
  readonly size: number;
  /** Appends; resolves once the bytes are written (callers await it: memory stays one write). */
  write(bytes: Buffer): Promise<void>;
  /** Bytes [from, to) of what was appended, before or after commit. */
  read(from: number, to: number): Promise<Buffer>;
  /** Stores the blob under its content address; returns the key. */
  commit(): Promise<string>;
  /** Gives the blob up (a failed encode); nothing is stored. */
  abort(): Promise<void>;
}

/**
 * Where audio bytes live, addressed by the sha256 of their content. `get` re-checks the hash,
 * so a file damaged on disk is reported as missing (and regenerated) instead of being served.
 */
export interface BlobStore {
  readonly kind: 'fs' | 'database';
  put(key: string, data: Buffer): Promise<void>;
  /** A blob written as it is made, where the store can (the filesystem); absent: gather and `put`. */
  writer?(): Promise<BlobWriter>;
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

  async writer(): Promise<BlobWriter> {
    const incoming = path.join(this.root, 'incoming');
    await fs.mkdir(incoming, { recursive: true });
    const tmp = path.join(incoming, `${process.pid}.${randomUUID()}.tmp`);
    const file = await fs.open(tmp, 'w+');
    const hash = createHash('sha256');
    let size = 0;
    let stored: string | null = null;
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      await file.close();
    };
    return {
      get size() {
        return size;
      },
      write: async (bytes) => {
        if (closed) throw new Error('blob writer is closed');
        hash.update(bytes);
        const at = size;
        size += bytes.length;
        for (let done = 0; done < bytes.length;) done += (await file.write(bytes, done, bytes.length - done, at + done)).bytesWritten;
      },
      read: async (from, to) => {
        const out = Buffer.alloc(Math.max(0, Math.min(to, size) - from));
        // Before commit through the open file; after it, from the stored file (same bytes).
        const handle = closed && stored ? await fs.open(stored, 'r') : file;
        try {
          for (let done = 0; done < out.length;) {
            const { bytesRead } = await handle.read(out, done, out.length - done, from + done);
            if (!bytesRead) break;
            done += bytesRead;
          }
        } finally {
          if (handle !== file) await handle.close();
        }
        return out;
      },
      commit: async () => {
        const key = hash.digest('hex');
        await close();
        const target = this.pathOf(key);
        await fs.mkdir(path.dirname(target), { recursive: true });
        await fs.rename(tmp, target);
        stored = target;
        return key;
      },
      abort: async () => {
        await close().catch(() => undefined);
        if (!stored) await fs.rm(tmp, { force: true });
      },
    };
  }

  async get(key: string): Promise<Buffer | null> {
    let data: Buffer;
    try {
      data = await fs.readFile(this.pathOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
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
      .execute('insert into audio_blobs (key, data, size, created_at) values (?, ?, ?, ?) on conflict (key) do nothing', [key, data, data.length, clock.now()]);
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
