import { getFramework } from '../../catalogue/frameworks';
import type { ReportModel } from './types';

/** How values read in a PDF report: dates, labels, framework names. No locale, no clock. */
export function parseDate(value: string | null | undefined): Date | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** UTC calendar date; unparsable input is shown verbatim rather than hidden. */
export function formatDate(value: string | null | undefined): string {
  if (!value) return '—';
  const date = parseDate(value);
  return date ? date.toISOString().slice(0, 10) : value;
}

export function formatTimestamp(value: string | null | undefined): string {
  if (!value) return '—';
  const date = parseDate(value);
  return date ? `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC` : value;
}

export function humanise(value: string | null | undefined): string {
  return value ? value.replace(/[_-]+/g, ' ') : '—';
}

/** Compact names for table cells, where the full catalogue names would wrap. */
const SHORT_FRAMEWORK_NAMES: Readonly<Record<string, string>> = {
  iso13485: 'ISO 13485',
  fda21cfr11: '21 CFR Part 11',
  gdpr: 'GDPR',
  soc2: 'SOC 2',
};

export function frameworkLabel(id: string | null): string {
  if (id === null) return 'All frameworks';
  return getFramework(id)?.name ?? id;
}

export function shortFrameworkLabel(id: string): string {
  return SHORT_FRAMEWORK_NAMES[id] ?? id;
}

export function describePeriod(period: ReportModel['period']): string {
  if (!period.start && !period.end) return 'All time';
  return `${period.start ? formatDate(period.start) : 'beginning'} to ${period.end ? formatDate(period.end) : 'present'}`;
}

export const KIND_LABEL: Record<string, string> = {
  compliance: 'Compliance report',
  requirements: 'Requirements report',
  audit: 'Audit findings report',
  summary: 'Compliance summary',
};

type FrameworkRow = ReportModel['summary']['frameworks'][number];

export function openCounts(f: FrameworkRow): string {
  const o = f.scoring?.findings.open;
  return o ? `C${o.critical} H${o.high} M${o.medium} L${o.low}` : '—';
}

/** The findings penalty and the cap it brings: "—" when there is neither, never "−0 / none" (issue 35). */
export function penaltyCell(f: FrameworkRow): string {
  if (!f.scoring) return '—';
  const { penalty, cap } = f.scoring.findings;
  if (!penalty && cap == null) return '—';
  return `${penalty ? `−${penalty}` : '0'}${cap != null ? `, cap ${cap}` : ''}`;
}
