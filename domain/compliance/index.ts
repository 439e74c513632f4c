import type { DomainDeps } from '../services';
import type { HealthService } from '../health';

/** Placeholder until the compliance services land; the composition root already expects them. */
export function createComplianceServices(_deps: DomainDeps, _shared: { health: HealthService }) {
  return {
    async start() {},
    async stop() {},
  };
}

export type ComplianceServices = ReturnType<typeof createComplianceServices>;
