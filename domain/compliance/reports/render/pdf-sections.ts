import { drawTable } from './pdf-table';
import { describePeriod, formatDate, formatTimestamp, frameworkLabel, humanise, KIND_LABEL, openCounts, penaltyCell, shortFrameworkLabel } from './pdf-format';
import { block, ensureSpace, MUTED_COLOR, writeField, writeParagraph, writeSectionHeading, type Doc } from './pdf-text';
import type { RenderOptions, ReportFindingRow, ReportModel, ReportRequirementRow } from './types';

/** The sections of a PDF report, in reading order. */
const GAP_FILL = '#fbe9e7';

export function writeHeader(doc: Doc, model: ReportModel): void {
  if (model.organisation) writeParagraph(doc, model.organisation, { size: 11, bold: true, color: MUTED_COLOR });
  writeParagraph(doc, model.title, { size: 18, bold: true }, 0, 'H1');
  doc.y += 4;
  writeField(doc, 'Report ID', model.reportId);
  writeField(doc, 'Type', `${KIND_LABEL[model.kind] ?? model.kind} · ${frameworkLabel(model.framework)}`);
  if (model.requestedBy)
    writeField(doc, 'Requested by', `${model.requestedBy.name} (key ${model.requestedBy.keyId ?? '—'}) at ${formatTimestamp(model.requestedAt)}`);
  writeField(doc, 'Generated', formatTimestamp(model.generatedAt));
  writeField(doc, 'Period', describePeriod(model.period));
  if (model.scope) {
    writeField(
      doc,
      'Scope',
      `${model.scope.frameworks.map(frameworkLabel).join(', ')}; ${model.scope.basis}; evidence ${model.scope.includeEvidence ? 'included' : 'not included'}`,
    );
  }
  const coverage = model.summary.frameworks
    .filter((f) => f.scoring)
    .map((f) => `${shortFrameworkLabel(f.id)} ${f.scoring!.coverage.covered}/${f.scoring!.coverage.clauses} clauses (${f.scoring!.coverage.percent}%)`);
  if (coverage.length) writeField(doc, 'Coverage', coverage.join('; '));
}

export function writeSummary(doc: Doc, model: ReportModel): void {
  writeSectionHeading(doc, 'Summary');
  writeParagraph(doc, `Overall score: ${model.summary.overallScore} / 100`, { size: 10, bold: true });
  doc.y += 4;
  drawTable(
    doc,
    [
      { header: 'Framework', width: 0.16, value: (row) => frameworkLabel(row.id) },
      { header: 'Score', width: 0.06, value: (row) => String(row.score), align: 'right' },
      { header: 'Status', width: 0.11, value: (row) => humanise(row.status) },
      {
        header: 'Coverage',
        width: 0.1,
        value: (row) => (row.scoring ? `${row.scoring.coverage.covered}/${row.scoring.coverage.clauses} (${row.scoring.coverage.percent}%)` : '—'),
        align: 'right',
      },
      { header: 'Implementation', width: 0.1, value: (row) => (row.scoring ? String(row.scoring.implementation) : '—'), align: 'right' },
      { header: 'Validation', width: 0.08, value: (row) => (row.scoring ? String(row.scoring.validation) : '—'), align: 'right' },
      { header: 'Base', width: 0.06, value: (row) => (row.scoring ? String(row.scoring.base) : '—'), align: 'right' },
      { header: 'Open findings', width: 0.1, value: openCounts },
      { header: 'Penalty', width: 0.09, value: penaltyCell, align: 'right' },
      { header: 'Requirements', width: 0.14, value: (row) => `${row.total}: ${row.completed} done, ${row.inProgress} in progress, ${row.pending} pending` },
    ],
    model.summary.frameworks,
    'No framework summary available.',
  );
  doc.y += 4;
  writeParagraph(
    doc,
    'Score = min(cap, 0.5 × coverage + 0.3 × implementation + 0.2 × validation − penalty). Penalty per open finding: critical 20, high 10, medium 4, low 1; cap 39.9 while a critical, 69.9 while a high finding is open (docs/scoring.md).',
    { size: 8, italic: true, color: MUTED_COLOR },
  );
}

function writeRequirement(doc: Doc, r: ReportRequirementRow): void {
  doc.y += 6;
  ensureSpace(doc, 40);
  writeParagraph(doc, `${r.id} — ${r.title}`, { size: 10, bold: true }, 0, 'H3');
  writeField(doc, 'Framework', shortFrameworkLabel(r.framework), 9, 10);
  writeField(
    doc,
    'Status',
    `${humanise(r.status)} · priority ${humanise(r.priority)} · created ${formatDate(r.createdAt)} · updated ${formatDate(r.updatedAt)}`,
    9,
    10,
  );
  const validation = r.validationStatus
    ? `${r.validationStatus}${r.validationScore != null ? ` (score ${r.validationScore})` : ''}${r.validatedAt ? ` at ${formatTimestamp(r.validatedAt)}` : ''}`
    : 'not validated';
  writeField(doc, 'Latest validation', validation, 9, 10);
  if (r.clauses !== undefined) writeField(doc, 'Clauses', r.clauses.length ? r.clauses.join(', ') : 'none (maps to no catalogue clause)', 9, 10);
  if (r.description !== undefined) writeField(doc, 'Description', r.description || '—', 9, 10);
  if (r.acceptanceCriteria !== undefined) {
    if (!r.acceptanceCriteria.length) writeField(doc, 'Acceptance criteria', 'none recorded', 9, 10);
    else {
      writeField(doc, 'Acceptance criteria', `${r.acceptanceCriteria.length}`, 9, 10);
      r.acceptanceCriteria.forEach((c, i) => writeParagraph(doc, `${i + 1}. ${c}`, { size: 9 }, 22));
    }
  }
}

export function writeRequirements(doc: Doc, model: ReportModel): void {
  writeSectionHeading(doc, `Requirements (${model.requirements.length})`);
  if (!model.requirements.length) writeParagraph(doc, 'No requirements in this report.', { size: 9, italic: true, color: MUTED_COLOR });
  for (const r of model.requirements) block(doc, 'Div', () => writeRequirement(doc, r));
}

function writeFinding(doc: Doc, f: ReportFindingRow, evidenceIncluded: boolean): void {
  doc.y += 6;
  ensureSpace(doc, 40);
  writeParagraph(doc, `${f.id} — ${f.title}`, { size: 10, bold: true }, 0, 'H3');
  writeField(
    doc,
    'Severity',
    `${humanise(f.severity)} · status ${humanise(f.status)} · ${shortFrameworkLabel(f.framework)}${f.requirementId ? ` · requirement ${f.requirementId}` : ''}`,
    9,
    10,
  );
  writeField(doc, 'Dates', `discovered ${formatDate(f.discoveredAt)} · due ${formatDate(f.dueDate)} · resolved ${formatDate(f.resolvedAt)}`, 9, 10);
  if (f.description !== undefined) writeField(doc, 'Description', f.description || '—', 9, 10);
  if (f.evidence !== undefined) {
    if (!f.evidence.length) writeField(doc, 'Evidence', 'none recorded', 9, 10);
    else {
      writeField(doc, 'Evidence', `${f.evidence.length} item${f.evidence.length === 1 ? '' : 's'}`, 9, 10);
      for (const item of f.evidence) writeParagraph(doc, `•  ${item}`, { size: 9 }, 22);
    }
  } else if (!evidenceIncluded) {
    writeField(doc, 'Evidence', 'not included in this report', 9, 10);
  }
  if (f.resolution !== undefined) writeField(doc, 'Resolution', f.resolution || (f.status === 'resolved' ? '—' : 'open'), 9, 10);
}

export function writeFindings(doc: Doc, model: ReportModel): void {
  writeSectionHeading(doc, `Findings (${model.findings.length})`);
  if (!model.findings.length) writeParagraph(doc, 'No findings in this report.', { size: 9, italic: true, color: MUTED_COLOR });
  for (const f of model.findings) block(doc, 'Div', () => writeFinding(doc, f, !!model.scope?.includeEvidence));
}

/** Evidence of models without per-finding evidence (older models): one list per finding. */
export function writeEvidence(doc: Doc, model: ReportModel): void {
  if (model.findings.some((f) => f.evidence !== undefined)) return;
  const entries = (model.evidence ?? []).filter((entry) => entry.items.length > 0);
  if (entries.length === 0) return;
  const findingsById = new Map<string, ReportFindingRow>(model.findings.map((finding) => [finding.id, finding]));
  writeSectionHeading(doc, 'Evidence');
  for (const entry of entries) {
    const finding = findingsById.get(entry.findingId);
    doc.y += 4;
    writeParagraph(doc, finding ? `Finding ${entry.findingId}: ${finding.title}` : `Finding ${entry.findingId}`, { size: 9, bold: true });
    for (const item of entry.items) writeParagraph(doc, `•  ${item}`, { size: 9 }, 12);
  }
}

/**
 * The matrix. Requirement and finding ids stand one per line in columns wide enough for an id at the
 * table's type size (issue 35: they were shrunk to about 5 pt); open and resolved findings share a column.
 */
export function writeTraceability(doc: Doc, model: ReportModel): void {
  const m = model.traceability;
  if (!m) return;
  writeSectionHeading(doc, `Traceability matrix: ${m.frameworkName} (${m.summary.covered} of ${m.summary.clauses} clauses covered, ${m.summary.gaps} gaps)`);
  type Clause = (typeof m.clauses)[number];
  const findings = (c: Clause) =>
    c.requirements.flatMap((r) => [...r.openFindings, ...r.resolvedFindings].map((f) => `${f.id} ${f.severity}, ${humanise(f.status)}`)).join('\n') || '—';
  drawTable(
    doc,
    [
      { header: 'Clause', width: 0.07, value: (c) => c.section },
      { header: 'Title', width: 0.13, value: (c) => c.title },
      {
        header: 'Requirements',
        width: 0.2,
        value: (c) => (c.requirements.length ? c.requirements.map((r) => `${r.id} ${humanise(r.status)}`).join('\n') : 'GAP: no requirement'),
      },
      {
        header: 'Latest validation',
        width: 0.12,
        value: (c) =>
          c.requirements
            .map((r) => (r.latestValidation ? `${r.latestValidation.status} ${formatDate(r.latestValidation.lastValidated)}` : 'not validated'))
            .join('\n') || '—',
      },
      { header: m.findingsIncluded ? 'Findings' : 'Findings (not shown)', width: 0.2, value: findings },
      { header: 'Evidence', width: 0.28, value: (c) => c.requirements.flatMap((r) => r.evidence.map((e) => e.value)).join('\n') || '—' },
    ],
    m.clauses,
    'The catalogue has no clauses.',
    (c) => (c.covered ? null : GAP_FILL),
  );
  if (!m.findingsIncluded)
    writeParagraph(doc, 'Findings are not shown: the requester may not read audit findings.', { size: 8, italic: true, color: MUTED_COLOR });
}

/**
 * The approval block: who prepared the report, and where the signatures are. Signatures are recorded
 * with the report, each bound to the SHA-256 of this very file (issue 37), so the file never changes
 * once generated; `how` tells the reader how to sign and check a copy (the gateway's addresses).
 */
export function writeApproval(doc: Doc, model: ReportModel, how: RenderOptions['instructions']): void {
  writeSectionHeading(doc, 'Approval');
  const rows = [
    {
      role: 'Prepared by',
      name: model.requestedBy ? `${model.requestedBy.name} (key ${model.requestedBy.keyId ?? '—'})` : 'the system',
      at: formatTimestamp(model.generatedAt),
      meaning: 'Requested and generated',
    },
    { role: 'Reviewed', name: '', at: '', meaning: 'Electronic signature, recorded with the report' },
    { role: 'Approved', name: '', at: '', meaning: 'Electronic signature, recorded with the report' },
  ];
  drawTable(
    doc,
    [
      { header: 'Role', width: 0.12, value: (r) => r.role },
      { header: 'Name', width: 0.3, value: (r) => r.name },
      { header: 'Date and time', width: 0.2, value: (r) => r.at },
      { header: 'Meaning', width: 0.38, value: (r) => r.meaning },
    ],
    rows,
    '',
  );
  doc.y += 4;
  writeParagraph(
    doc,
    'Electronic signatures (21 CFR 11.50, 11.70) are recorded with the report, not written into this file: each names the signer, the date and time and its meaning (reviewed or approved), and is bound to the SHA-256 of this very file, which never changes once generated.' +
      (how ? ` Sign with ${how.sign}; check a copy, and read the signatures bound to it, with ${how.verify}.` : ''),
    { size: 8, italic: true, color: MUTED_COLOR },
  );
}
