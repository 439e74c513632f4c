import type { EntityManager } from '@mikro-orm/postgresql';
import { clock } from './clock';

export const SERVICE_VERSION = '0.1.0';

/** Liveness (the process answers) and readiness (the database answers) for probes and load balancers. */
export class HealthService {
  private readonly startedAt = clock.nowMs();

  constructor(
    private readonly rootEm: EntityManager,
    private readonly environment: string,
  ) {}

  uptimeSeconds() {
    return Math.floor((clock.nowMs() - this.startedAt) / 1000);
  }

  health() {
    return {
      status: 'healthy',
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
    const database = await this.databaseReachable();
    return { ready: database, timestamp: clock.now().toISOString(), checks: { database: database ? 'up' : 'down' } };
  }

  live() {
    return { live: true, timestamp: clock.now().toISOString() };
  }
}
