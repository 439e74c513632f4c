import type { Permission } from '../auth/permissions';
import { can, type Principal } from '../auth/principal';
import type { DomainEvent } from '../events/bus';
import type { ComplianceEventType } from './events';

/**
 * What each compliance event type reveals, as the permission that reads the same data (any one of
 * them suffices). One table for every live channel and webhooks, so a key receives an event exactly
 * when a read of the data would show it.
 * `report.completed` is further limited to the report's requester and the admin (reports are owned).
 */
export const EVENT_READ_PERMISSIONS: Readonly<Record<ComplianceEventType, readonly Permission[]>> = {
  'requirement.created': ['read:requirements'],
  'requirement.updated': ['read:requirements'],
  'requirement.deleted': ['read:requirements'],
  'validation.completed': ['read:requirements'],
  'finding.created': ['read:audits'],
  'finding.updated': ['read:audits'],
  // Scores are on the compliance status and on the dashboard metrics.
  'compliance.score_changed': ['read:compliance', 'read:dashboard'],
  // Compliance reports are read with read:compliance, dashboard reports with read:dashboard (see reportReadPermission).
  'report.completed': ['read:compliance', 'read:dashboard'],
  'user.activity': ['read:dashboard'],
  'system.alert': ['read:dashboard'],
};

/** The permission that reads a report of this origin (status, download, its live event). */
export const reportReadPermission = (origin: unknown): Permission => (origin === 'compliance' ? 'read:compliance' : 'read:dashboard');

/** Reports belong to their requester; the admin sees every one. Rows without a requester are the admin's. */
export const ownsReport = (principal: Principal, requestedBy: string | null | undefined): boolean =>
  principal.isAdmin || (!!requestedBy && requestedBy === principal.keyId);

/** Activity entries name what they touched; the name is only shown to keys that may read that thing. */
const ACTIVITY_SUBJECT: { prefix: string; noun: string; permission: Permission }[] = [
  { prefix: 'requirement.', noun: 'requirement', permission: 'read:requirements' },
  { prefix: 'finding.', noun: 'finding', permission: 'read:audits' },
];

/**
 * An activity entry as this principal may see it: the description (which quotes a requirement's or a
 * finding's title) is replaced by a neutral one when the principal cannot read that kind of record.
 */
export function activityFor<T extends { type: string; description: string; subjectId?: string | null }>(principal: Principal, entry: T): T {
  const subject = ACTIVITY_SUBJECT.find((s) => entry.type.startsWith(s.prefix));
  if (!subject || can(principal, subject.permission)) return entry;
  const verb = entry.type.slice(subject.prefix.length);
  return { ...entry, description: `A ${subject.noun} was ${verb}${entry.subjectId ? ` (${entry.subjectId})` : ''}; details need ${subject.permission}` };
}

/** Why a principal gets nothing of an event, or null when it may read it. */
export function eventRefusal(principal: Principal, event: Pick<DomainEvent, 'type' | 'data'>): string | null {
  const needs = EVENT_READ_PERMISSIONS[event.type as ComplianceEventType];
  if (!needs) return principal.isAdmin ? null : `unknown event type ${event.type}`;
  if (event.type === 'report.completed') {
    const data = event.data as { origin?: unknown; requestedBy?: { keyId?: string | null } | null };
    const permission = reportReadPermission(data.origin);
    if (!can(principal, permission)) return `lacks ${permission}`;
    if (!ownsReport(principal, data.requestedBy?.keyId)) return 'not the report requester';
    return null;
  }
  if (!needs.some((p) => can(principal, p))) return `lacks ${needs.join(' or ')}`;
  return null;
}

/**
 * The event as this principal may receive it, or null when it may not receive it at all. Returns
 * the same object when nothing is withheld (so a fan-out can serialise it once for many receivers).
 */
export function eventFor<E extends Pick<DomainEvent, 'type' | 'data'>>(principal: Principal, event: E): E | null {
  if (eventRefusal(principal, event)) return null;
  if (event.type === 'user.activity') {
    const data = event.data as { type?: unknown; description?: unknown; subjectId?: string | null };
    if (typeof data.type === 'string' && typeof data.description === 'string') {
      const shown = activityFor(principal, data as { type: string; description: string; subjectId?: string | null });
      if (shown !== data) return { ...event, data: shown };
    }
  }
  return event;
}
