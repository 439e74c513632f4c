import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clock } from '../clock';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded';
import { migrationsFingerprint } from './migrated-template';

/** What the health endpoint says of the embedded database. */
export interface EmbeddedDatabaseState {
  state: 'up' | 'restarting' | 'failed';
  /** Restarts since the gateway started. */
  restarts: number;
  /** The last unexpected exit: when, and how (exit code or signal). */
  lastExit?: { at: string; code: number | null; signal: string | null };
}

export interface SupervisorOptions {
  maxConnections?: number;
  /** First wait before a restart; doubles per failed attempt up to maxBackoffMs. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** How long restarting may go on before the supervisor gives up (then `onGiveUp`: the gateway exits non-zero). */
  giveUpAfterMs?: number;
  startTimeoutMs?: number;
  /**
   * The fingerprint of the migrations whose template a new data directory may be copied from
   * (migrated-template.ts); this build's by default, null for the plain template.
   */
  migrations?: string | null;
  onExit?(info: { code: number | null; signal: string | null }): void;
  onRestarted?(info: { restarts: number; downMs: number }): void;
  onGiveUp?(err: Error): void;
}

/**
 * The embedded database as a supervised child (issue 37): when its process exits without being told
 * to (a crash, `kill -9`), it is started again on the same data directory and the same private
 * socket directory, with back-off, so the gateway's pool reconnects to the address it knows. If it
 * cannot be brought back within `giveUpAfterMs`, `onGiveUp` is told (the gateway then exits non-zero
 * so that its own supervisor restarts the whole process).
 */
export class EmbeddedSupervisor {
  private current: EmbeddedPostgres | null = null;
  private stopping = false;
  private status: EmbeddedDatabaseState = { state: 'up', restarts: 0 };
  private restarting: Promise<void> | null = null;

  private constructor(
    private readonly dataDir: string,
    readonly socketDir: string,
    /** Settable after the start (the data layer adds its listeners). */
    readonly opts: SupervisorOptions,
  ) {}

  /** Starts the database and watches it. */
  static async start(dataDir: string, opts: SupervisorOptions = {}): Promise<EmbeddedSupervisor> {
    const socketDir = fs.mkdtempSync(path.join(os.tmpdir(), `gw-pglite-${process.pid}-`));
    fs.chmodSync(socketDir, 0o700);
    const s = new EmbeddedSupervisor(dataDir, socketDir, opts);
    try {
      s.watch(await s.launch());
    } catch (err) {
      fs.rmSync(socketDir, { recursive: true, force: true });
      throw err;
    }
    return s;
  }

  /** The loopback URL of the running process (its password changes with each start). */
  get url(): string {
    return this.current?.url ?? '';
  }

  get pid(): number {
    return this.current?.pid ?? 0;
  }

  state(): EmbeddedDatabaseState {
    return { ...this.status, ...(this.status.lastExit ? { lastExit: { ...this.status.lastExit } } : {}) };
  }

  /** Resolves once the database answers again (or at once when it does). */
  whenUp(): Promise<void> {
    return this.restarting ?? Promise.resolve();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.restarting?.catch(() => undefined);
    await this.current?.stop();
    fs.rmSync(this.socketDir, { recursive: true, force: true });
  }

  private launch(): Promise<EmbeddedPostgres> {
    return startEmbeddedPostgres(this.dataDir, {
      maxConnections: this.opts.maxConnections,
      startTimeoutMs: this.opts.startTimeoutMs,
      socketDir: this.socketDir,
      migrations: this.opts.migrations === undefined ? migrationsFingerprint() : this.opts.migrations,
    });
  }

  private watch(db: EmbeddedPostgres) {
    this.current = db;
    db.onUnexpectedExit = (code, signal) => {
      if (this.stopping) return;
      this.status = { state: 'restarting', restarts: this.status.restarts, lastExit: { at: clock.now().toISOString(), code, signal } };
      this.opts.onExit?.({ code, signal });
      this.restarting = this.restart().finally(() => (this.restarting = null));
      this.restarting.catch(() => undefined);
    };
  }

  private async restart(): Promise<void> {
    const since = clock.nowMs();
    const giveUpAt = since + (this.opts.giveUpAfterMs ?? 60_000);
    let wait = this.opts.backoffMs ?? 100;
    let lastError: Error = new Error('not started');
    while (!this.stopping) {
      await new Promise((r) => setTimeout(r, wait));
      if (this.stopping) return;
      try {
        const db = await this.launch();
        if (this.stopping) return void (await db.stop());
        this.status = { ...this.status, state: 'up', restarts: this.status.restarts + 1 };
        this.watch(db);
        this.opts.onRestarted?.({ restarts: this.status.restarts, downMs: clock.nowMs() - since });
        return;
      } catch (err) {
        lastError = err instanceof Error ? err : new Error(String(err));
      }
      if (clock.nowMs() + wait >= giveUpAt) break;
      wait = Math.min(this.opts.maxBackoffMs ?? 5_000, wait * 2);
    }
    if (this.stopping) return;
    this.status = { ...this.status, state: 'failed' };
    const err = new Error(`The embedded database could not be restarted within ${this.opts.giveUpAfterMs ?? 60_000} ms: ${lastError.message}`);
    this.opts.onGiveUp?.(err);
    throw err;
  }
}
