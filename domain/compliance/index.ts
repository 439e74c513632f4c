import type { AuditTrail } from '../audit/audit-trail.service';
import type { DomainDeps } from '../deps';
import type { HealthService } from '../health';
import { ActivityService } from './activity/activity.service';
import { ChangeRunner } from './change-runner';
import { ComplianceEventPublisher } from './events';
import { FindingService } from './findings/finding.service';
import { FrameworksService } from './frameworks.service';
import { RequirementService } from './requirements/requirement.service';
import { ComplianceStatusService } from './status/compliance-status.service';
import { ComplianceUpkeep } from './status/compliance-upkeep';
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
  const complianceStatus = new ComplianceStatusService(deps.rootEm);
  const complianceUpkeep = new ComplianceUpkeep(deps.rootEm);
  const frameworks = new FrameworksService();
  const readModel = new ReadModel(deps.rootEm, deps.readModelCacheBytes, deps.soleWriter);
  /** Every requirement and finding mutation: one transaction, measured, audited, evented and re-scored. */
  const changes = new ChangeRunner({ events, activity, status: complianceStatus, upkeep: complianceUpkeep, auditTrail: shared.auditTrail });
  const requirements = new RequirementService({ changes, readModel });
  const findings = new FindingService({ changes });

  const gate = new GateService(complianceStatus);
  const traceability = new TraceabilityService(deps.heavyWork);

  const live = createLiveComplianceServices(deps, { health: shared.health, events, complianceStatus, auditTrail: shared.auditTrail });

  const svc = { readModel, events, activity, complianceStatus, complianceUpkeep, frameworks, requirements, findings, gate, traceability, ...live.services };
  return {
    ...svc,
    async start() {
      await complianceUpkeep.backfillClauses();
      await complianceStatus.ensureBaseline();
      await complianceUpkeep.start();
      live.start();
    },
    async stop() {
      complianceUpkeep.stop();
      await live.stop();
    },
  };
}

export type ComplianceServices = ReturnType<typeof createComplianceServices>;
