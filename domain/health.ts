import type { EntityManager } from '@mikro-orm/postgresql';
import { clock } from './clock';

export const SERVICE_VERSION = '0.1.0';

/**
 * The database as health reports it: `up`; `unavailable` (not answering: refused, hung);
 * `restarting` (the embedded database's process exited and is being started again); `failed` (it
 * could not be restarted: the gateway is exiting).
 */
export interface DatabaseState {
  state: 'up' | 'unavailable' | 'restarting' | 'failed';
  embedded?: { state: string; restarts: number; lastExit?: { at: string; code: number | null; signal: string | null } };
}

/** Liveness (the process answers) and readiness (the database answers) for probes and load balancers. */
export class HealthService {
  private readonly startedAt = clock.nowMs();

  constructor(
    private readonly rootEm: EntityManager,
    private readonly environment: string,
    private readonly databaseState: () => DatabaseState = () => ({ state: 'up' }),
  ) {}

  uptimeSeconds() {
    return Math.floor((clock.nowMs() - this.startedAt) / 1000);
  }

  /** `degraded`, with the database's state, while the database is not answering (live stays 200, ready 503). */
  health() {
    const database = this.databaseState();
    return {
      status: database.state === 'up' ? 'healthy' : 'degraded',
      database,
      timestamp: clock.now().toISOString(),
      uptime: this.uptimeSeconds(),
      environment: this.environment,
      version: SERVICE_VERSION,
      service: 'tts-gateway',
    };
  }

  async databaseReachable(timeoutMs = 1500): Promise<boolean> {
    try {
      await Promise.race([
        this.rootEm.getConnection().execute('select 1'),
        new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), timeoutMs).unref()),
      ]);
      return true;
    } catch {
      return false;
    }
  }

  async ready() {
    const database = this.databaseState().state === 'up' && (await this.databaseReachable());
    return { ready: database, timestamp: clock.now().toISOString(), checks: { database: database ? 'up' : 'down' } };
  }

  live() {
    return { live: true, timestamp: clock.now().toISOString() };
  }
}
