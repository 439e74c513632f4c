import type { AuditTrail } from '../audit/audit-trail.service';
import type { DomainDeps } from '../services';
import type { HealthService } from '../health';
import { ActivityService } from './activity/activity.service';
import { ComplianceEventPublisher } from './events';
import { FindingService } from './findings/finding.service';
import { FrameworksService } from './frameworks.service';
import { RequirementService } from './requirements/requirement.service';
import { ComplianceStatusService } from './status/compliance-status.service';
import { createLiveComplianceServices } from './live';
import { GateService } from './gate/gate.service';
import { TraceabilityService } from './traceability/traceability.service';

/**
 * The compliance platform's services. The returned object stays flat: each service is one member,
 * so new services are added with one line here and one in `svc`.
 */
export function createComplianceServices(deps: DomainDeps, shared: { health: HealthService; auditTrail: AuditTrail }) {
  /** Stages events in the changing transaction (webhook outbox via `events.setOutbox`) and publishes after commit. */
  const events = new ComplianceEventPublisher(deps.bus);
  const activity = new ActivityService(events);
  const complianceStatus = new ComplianceStatusService(deps.rootEm, events);
  const frameworks = new FrameworksService();
  const requirements = new RequirementService({ events, activity, status: complianceStatus, auditTrail: shared.auditTrail });
  const findings = new FindingService({ events, activity, auditTrail: shared.auditTrail, status: complianceStatus });

  const gate = new GateService(complianceStatus);
  const traceability = new TraceabilityService();

  const live = createLiveComplianceServices(deps, { health: shared.health, events, complianceStatus, auditTrail: shared.auditTrail });

  const svc = { events, activity, complianceStatus, frameworks, requirements, findings, gate, traceability, ...live.services };
  return {
    ...svc,
    async start() {
      await complianceStatus.ensureBaseline();
      live.start();
    },
    async stop() {
      await live.stop();
    },
  };
}

export type ComplianceServices = ReturnType<typeof createComplianceServices>;
