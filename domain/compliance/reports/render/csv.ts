import type { ReportModel } from './types';
import { toCsv, type CsvCell } from './csv-writer';

/**
 * One header for the whole file; the `section` column says which columns a
 * row uses (report, framework, requirement, finding, evidence). A single
 * sparse table keeps the export one file that imports cleanly anywhere.
 */
export const CSV_COLUMNS = [
  'section',
  'id',
  'title',
  'framework',
  'kind',
  'status',
  'priority',
  'severity',
  'validation_status',
  'score',
  'total',
  'completed',
  'in_progress',
  'pending',
  'created_at',
  'updated_at',
  'discovered_at',
  'due_date',
  'resolved_at',
  'generated_at',
  'period_start',
  'period_end',
  'finding_id',
  'evidence',
  'description',
  'acceptance_criteria',
  'clauses',
  'resolution',
  'requirement_id',
  'requested_by',
  'signer',
  'meaning',
  'signed_at',
  'sha256',
] as const;

export type CsvColumn = (typeof CSV_COLUMNS)[number];
type CsvRecord = Partial<Record<CsvColumn, CsvCell>>;

function toRow(record: CsvRecord): CsvCell[] {
  return CSV_COLUMNS.map((column) => record[column]);
}

export function reportToCsvRecords(model: ReportModel): CsvRecord[] {
  const records: CsvRecord[] = [
    {
      section: 'report',
      id: model.reportId,
      title: model.title,
      framework: model.framework,
      kind: model.kind,
      score: model.summary.overallScore,
      generated_at: model.generatedAt,
      period_start: model.period.start,
      period_end: model.period.end,
      description: model.organisation,
      requested_by: model.requestedBy ? `${model.requestedBy.name} (${model.requestedBy.keyId ?? '—'})` : null,
      sha256: model.recordSha256 ?? null,
    },
  ];
  for (const framework of model.summary.frameworks) {
    records.push({
      section: 'framework',
      id: framework.id,
      framework: framework.id,
      status: framework.status,
      score: framework.score,
      total: framework.total,
      completed: framework.completed,
      in_progress: framework.inProgress,
      pending: framework.pending,
    });
  }
  for (const requirement of model.requirements) {
    records.push({
      section: 'requirement',
      id: requirement.id,
      title: requirement.title,
      framework: requirement.framework,
      status: requirement.status,
      priority: requirement.priority,
      validation_status: requirement.validationStatus,
      created_at: requirement.createdAt,
      updated_at: requirement.updatedAt,
      description: requirement.description,
      acceptance_criteria: requirement.acceptanceCriteria?.join('\n'),
      clauses: requirement.clauses?.join('; '),
    });
  }
  for (const finding of model.findings) {
    records.push({
      section: 'finding',
      id: finding.id,
      title: finding.title,
      framework: finding.framework,
      severity: finding.severity,
      status: finding.status,
      discovered_at: finding.discoveredAt,
      due_date: finding.dueDate,
      resolved_at: finding.resolvedAt,
      description: finding.description,
      resolution: finding.resolution,
      requirement_id: finding.requirementId,
    });
  }
  for (const evidence of model.evidence ?? []) {
    for (const item of evidence.items) {
      records.push({ section: 'evidence', finding_id: evidence.findingId, evidence: item });
    }
  }
  for (const signature of model.signatures ?? []) {
    records.push({
      section: 'signature',
      id: signature.signatureHash,
      signer: `${signature.signerName} (${signature.keyId})`,
      meaning: signature.meaning,
      signed_at: signature.signedAt,
      sha256: signature.recordSha256,
    });
  }
  return records;
}

export function renderCsv(model: ReportModel): Buffer {
  return Buffer.from(toCsv([[...CSV_COLUMNS], ...reportToCsvRecords(model).map(toRow)]), 'utf8');
}
