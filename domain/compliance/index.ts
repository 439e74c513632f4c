import type { AuditTrail } from '../audit/audit-trail.service';
import type { DomainDeps } from '../deps';
import type { HealthService } from '../health';
import { ActivityService } from './activity/activity.service';
import { ChangeRunner } from './change-runner';
import { ComplianceEventPublisher } from './events';
import { FindingService } from './findings/finding.service';
import { FrameworksService } from './frameworks.service';
import { RequirementService } from './requirements/requirement.service';
import { ComplianceStatusService, SNAPSHOT_PRUNE_INTERVAL_MS, TALLY_COMPACT_INTERVAL_MS } from './status/compliance-status.service';
import { createLiveComplianceServices } from './live';
import { ReadModel } from './read-model/read-model';
import { GateService } from './gate/gate.service';
import { TraceabilityService } from './traceability/traceability.service';

/**
 * The compliance platform's services. The returned object stays flat: each service is one member,
 * so new services are added with one line here and one in `svc`.
 */
export function createComplianceServices(deps: DomainDeps, shared: { health: HealthService; auditTrail: AuditTrail }) {
  /** Stages events in the changing transaction (webhook outbox via `events.setOutbox`) and publishes after commit. */
  const events = new ComplianceEventPublisher(deps.bus);
  const activity = new ActivityService();
  const complianceStatus = new ComplianceStatusService(deps.rootEm, events);
  const frameworks = new FrameworksService();
  const readModel = new ReadModel(deps.rootEm, deps.readModelCacheBytes);
  /** Every requirement and finding mutation: one transaction, measured, audited, evented and re-scored. */
  const changes = new ChangeRunner({ events, activity, status: complianceStatus, auditTrail: shared.auditTrail });
  const requirements = new RequirementService({ changes, readModel });
  const findings = new FindingService({ changes });

  const gate = new GateService(complianceStatus);
  const traceability = new TraceabilityService();

  const live = createLiveComplianceServices(deps, { health: shared.health, events, complianceStatus, auditTrail: shared.auditTrail });

  // The tally's deltas are folded while they are few: measuring sums them inside every write.
  let compactor: NodeJS.Timeout | undefined;
  let pruner: NodeJS.Timeout | undefined;
  let compacting = false;
  const compactSoon = async () => {
    if (compacting) return;
    compacting = true;
    try {
      await complianceStatus.compactTallyIfGrown();
    } catch {
      // the database is away; the next tick tries again
    } finally {
      compacting = false;
    }
  };

  const svc = { readModel, events, activity, complianceStatus, frameworks, requirements, findings, gate, traceability, ...live.services };
  return {
    ...svc,
    async start() {
      await complianceStatus.ensureBaseline();
      await complianceStatus.compactTally();
      compactor = setInterval(() => void compactSoon(), TALLY_COMPACT_INTERVAL_MS);
      compactor.unref();
      complianceStatus.onTallyGrowth = () => void compactSoon();
      await complianceStatus.pruneSnapshots().catch(() => undefined);
      pruner = setInterval(() => void complianceStatus.pruneSnapshots().catch(() => undefined), SNAPSHOT_PRUNE_INTERVAL_MS);
      pruner.unref();
      live.start();
    },
    async stop() {
      if (compactor) clearInterval(compactor);
      complianceStatus.onTallyGrowth = undefined;
      if (pruner) clearInterval(pruner);
      await live.stop();
    },
  };
}

export type ComplianceServices = ReturnType<typeof createComplianceServices>;
