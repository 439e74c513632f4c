import type PDFKitDocument from 'pdfkit';
import { getFramework } from '../../catalogue/frameworks';
import { face, facePath, runsOf, type FaceKey, type Run, type Style } from './fonts';
import type { RenderOptions, ReportFindingRow, ReportModel, ReportRequirementRow, ReportSignatureRow } from './types';

type Doc = PDFKit.PDFDocument;

const MARGIN = 40;
const FOOTER_HEIGHT = 18;
const CELL_PADDING = 3;
const TABLE_FONT_SIZE = 8;
/** Cells shrink their type down to this so an identifier never has to break. */
const MIN_CELL_FONT_SIZE = 5;
const LINE_HEIGHT = 1.3;
const TEXT_COLOR = '#111111';
const MUTED_COLOR = '#555555';
const HEADER_FILL = '#e6e9ef';
const GAP_FILL = '#fbe9e7';
const RULE_COLOR = '#c8ccd4';

// ---------- text: font fallback and line breaking ----------

interface TextStyle extends Style {
  size: number;
  color?: string;
}

/**
 * Break opportunities: after whitespace and around each CJK character (those scripts do not use
 * spaces). Anything else — identifiers, hashes, paths — is one token and never split.
 */
const TOKEN = /\s+|[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]|[^\s\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]+/gu;

interface Line {
  text: string;
  width: number;
}

function normalise(text: string): string {
  return text
    .normalize('NFC')
    .replace(/\r\n?/g, '\n')
    .replace(/\t/g, ' ')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
}

function widthOf(doc: Doc, text: string, style: TextStyle): number {
  let width = 0;
  for (const run of runsOf(text, style)) width += useFace(doc, run.face, style.size).widthOfString(run.text);
  return width;
}

function useFace(doc: Doc, key: FaceKey, size: number): Doc {
  return doc.font(key).fontSize(size);
}

/** Greedy line breaking at break opportunities; a token wider than the line stands alone on it. */
function breakLines(doc: Doc, text: string, width: number, style: TextStyle): Line[] {
  const lines: Line[] = [];
  for (const paragraph of normalise(text).split('\n')) {
    let line = '';
    let lineWidth = 0;
    let pending = '';
    for (const token of paragraph.match(TOKEN) ?? []) {
      if (/^\s+$/u.test(token)) {
        if (line) pending = ' ';
        continue;
      }
      const tokenWidth = widthOf(doc, token, style);
      const gap = pending ? widthOf(doc, pending, style) : 0;
      if (line && lineWidth + gap + tokenWidth > width) {
        lines.push({ text: line, width: lineWidth });
        line = token;
        lineWidth = tokenWidth;
      } else {
        line += pending + token;
        lineWidth += gap + tokenWidth;
      }
      pending = '';
    }
    lines.push({ text: line, width: lineWidth });
  }
  return lines;
}

/** The widest unbreakable token of a text, in points at `style.size`. */
function widestToken(doc: Doc, text: string, style: TextStyle): number {
  let widest = 0;
  for (const token of normalise(text).match(TOKEN) ?? []) if (!/^\s+$/u.test(token)) widest = Math.max(widest, widthOf(doc, token, style));
  return widest;
}

/** Draws one line, run by run, on a common baseline. */
function drawLine(doc: Doc, line: Line, x: number, baseline: number, style: TextStyle): void {
  // pdfkit moves its cursor after each text() call; the layout here keeps its own.
  const { x: keepX, y: keepY } = doc;
  let cursor = x;
  for (const run of runsOf(line.text, style) as Run[]) {
    const d = useFace(doc, run.face, style.size).fillColor(style.color ?? TEXT_COLOR);
    d.text(run.text, cursor, baseline, { lineBreak: false, baseline: 'alphabetic' });
    cursor += d.widthOfString(run.text);
  }
  doc.x = keepX;
  doc.y = keepY;
}

const ascentOf = (size: number) => size * 0.95;

function contentWidth(doc: Doc): number {
  return doc.page.width - doc.page.margins.left - doc.page.margins.right;
}

function contentBottom(doc: Doc): number {
  return doc.page.height - doc.page.margins.bottom - FOOTER_HEIGHT;
}

/** Starts a new page unless `height` points still fit above the footer. */
function ensureSpace(doc: Doc, height: number): void {
  if (doc.y + height > contentBottom(doc)) {
    doc.addPage();
    doc.y = doc.page.margins.top;
  }
}

/** A paragraph across the content width (or from `indent`), breaking pages between lines. */
function writeParagraph(doc: Doc, text: string, style: TextStyle, indent = 0): void {
  const left = doc.page.margins.left + indent;
  const width = contentWidth(doc) - indent;
  const lineHeight = style.size * LINE_HEIGHT;
  for (const line of breakLines(doc, text, width, style)) {
    ensureSpace(doc, lineHeight);
    drawLine(doc, line, left, doc.y + ascentOf(style.size), style);
    doc.y += lineHeight;
  }
  doc.x = doc.page.margins.left;
}

/** "Label: value" with the label in bold. */
function writeField(doc: Doc, label: string, value: string, size = 9, indent = 0): void {
  const labelStyle: TextStyle = { size, bold: true };
  const valueStyle: TextStyle = { size };
  const labelText = `${label}: `;
  const labelWidth = widthOf(doc, labelText, labelStyle);
  const width = contentWidth(doc) - indent - labelWidth;
  const lines = breakLines(doc, value, width, valueStyle);
  const lineHeight = size * LINE_HEIGHT;
  lines.forEach((line, i) => {
    ensureSpace(doc, lineHeight);
    const baseline = doc.y + ascentOf(size);
    if (i === 0) drawLine(doc, { text: labelText, width: labelWidth }, doc.page.margins.left + indent, baseline, labelStyle);
    drawLine(doc, line, doc.page.margins.left + indent + labelWidth, baseline, valueStyle);
    doc.y += lineHeight;
  });
}

function writeSectionHeading(doc: Doc, text: string): void {
  doc.y += 12;
  // Keep a heading together with what follows it.
  ensureSpace(doc, 60);
  writeParagraph(doc, text, { size: 12, bold: true });
  doc.y += 4;
}

// ---------- tables ----------

interface Column<Row> {
  header: string;
  /** Fraction of the content width. */
  width: number;
  value: (row: Row) => string;
  align?: 'left' | 'right';
}

interface Cell {
  lines: Line[];
  style: TextStyle;
}

/** Lays a cell out; the type shrinks until its widest token fits, so identifiers are never broken. */
function layoutCell(doc: Doc, text: string, width: number, bold: boolean): Cell {
  const inner = width - 2 * CELL_PADDING;
  let size = TABLE_FONT_SIZE;
  const widest = widestToken(doc, text, { size, bold });
  if (widest > inner) size = Math.max(MIN_CELL_FONT_SIZE, Math.floor(((size * inner) / widest) * 10) / 10);
  const style: TextStyle = { size, bold };
  return { lines: breakLines(doc, text, inner, style), style };
}

const cellHeight = (cell: Cell) => cell.lines.length * cell.style.size * LINE_HEIGHT;

function drawRow(doc: Doc, cells: Cell[], widths: number[], aligns: ('left' | 'right')[], y: number, fill: string | null): number {
  const height = Math.max(...cells.map(cellHeight)) + 2 * CELL_PADDING;
  const left = doc.page.margins.left;
  const total = widths.reduce((sum, width) => sum + width, 0);
  if (fill) doc.rect(left, y, total, height).fill(fill);
  let x = left;
  cells.forEach((cell, i) => {
    let lineY = y + CELL_PADDING;
    for (const line of cell.lines) {
      const lineX = aligns[i] === 'right' ? x + widths[i] - CELL_PADDING - line.width : x + CELL_PADDING;
      drawLine(doc, line, lineX, lineY + ascentOf(cell.style.size), cell.style);
      lineY += cell.style.size * LINE_HEIGHT;
    }
    x += widths[i];
  });
  doc.moveTo(left, y + height).lineTo(left + total, y + height).lineWidth(0.5).strokeColor(RULE_COLOR).stroke();
  return height;
}

/** Draws a table, repeating the header row on every page it spills onto. */
function drawTable<Row>(doc: Doc, columns: Column<Row>[], rows: readonly Row[], emptyText: string, fillOf: (row: Row) => string | null = () => null): void {
  if (rows.length === 0) {
    writeParagraph(doc, emptyText, { size: 9, italic: true, color: MUTED_COLOR });
    return;
  }
  const widths = columns.map((column) => column.width * contentWidth(doc));
  const aligns = columns.map((column) => column.align ?? 'left');
  const header = columns.map((column, i) => layoutCell(doc, column.header, widths[i], true));
  const headerHeight = Math.max(...header.map(cellHeight)) + 2 * CELL_PADDING;
  let y = doc.y;
  let first = true;
  for (const row of rows) {
    const cells = columns.map((column, i) => layoutCell(doc, column.value(row), widths[i], false));
    const height = Math.max(...cells.map(cellHeight)) + 2 * CELL_PADDING;
    if (first || y + height > contentBottom(doc)) {
      if (!first || y + headerHeight + height > contentBottom(doc)) {
        doc.addPage();
        y = doc.page.margins.top;
      }
      y += drawRow(doc, header, widths, aligns, y, HEADER_FILL);
      first = false;
    }
    y += drawRow(doc, cells, widths, aligns, y, fillOf(row));
  }
  doc.x = doc.page.margins.left;
  doc.y = y;
}

// ---------- formatting ----------

function parseDate(value: string | null | undefined): Date | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** UTC calendar date; unparsable input is shown verbatim rather than hidden. */
function formatDate(value: string | null | undefined): string {
  if (!value) return '—';
  const date = parseDate(value);
  return date ? date.toISOString().slice(0, 10) : value;
}

function formatTimestamp(value: string | null | undefined): string {
  if (!value) return '—';
  const date = parseDate(value);
  return date ? `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC` : value;
}

function humanise(value: string | null | undefined): string {
  return value ? value.replace(/[_-]+/g, ' ') : '—';
}

/** Compact names for table cells, where the full catalogue names would wrap. */
const SHORT_FRAMEWORK_NAMES: Readonly<Record<string, string>> = {
  iso13485: 'ISO 13485',
  fda21cfr11: '21 CFR Part 11',
  gdpr: 'GDPR',
  soc2: 'SOC 2',
};

function frameworkLabel(id: string | null): string {
  if (id === null) return 'All frameworks';
  return getFramework(id)?.name ?? id;
}

function shortFrameworkLabel(id: string): string {
  return SHORT_FRAMEWORK_NAMES[id] ?? id;
}

function describePeriod(period: ReportModel['period']): string {
  if (!period.start && !period.end) return 'All time';
  return `${period.start ? formatDate(period.start) : 'beginning'} to ${period.end ? formatDate(period.end) : 'present'}`;
}

const KIND_LABEL: Record<string, string> = { compliance: 'Compliance report', requirements: 'Requirements report', audit: 'Audit findings report', summary: 'Compliance summary' };

// ---------- sections ----------

function writeHeader(doc: Doc, model: ReportModel): void {
  if (model.organisation) writeParagraph(doc, model.organisation, { size: 11, bold: true, color: MUTED_COLOR });
  writeParagraph(doc, model.title, { size: 18, bold: true });
  doc.y += 4;
  writeField(doc, 'Report ID', model.reportId);
  writeField(doc, 'Type', `${KIND_LABEL[model.kind] ?? model.kind} · ${frameworkLabel(model.framework)}`);
  if (model.requestedBy) writeField(doc, 'Requested by', `${model.requestedBy.name} (key ${model.requestedBy.keyId ?? '—'}) at ${formatTimestamp(model.requestedAt)}`);
  writeField(doc, 'Generated', formatTimestamp(model.generatedAt));
  writeField(doc, 'Period', describePeriod(model.period));
  if (model.scope) {
    writeField(doc, 'Scope', `${model.scope.frameworks.map(frameworkLabel).join(', ')}; ${model.scope.basis}; evidence ${model.scope.includeEvidence ? 'included' : 'not included'}`);
  }
  const coverage = model.summary.frameworks
    .filter((f) => f.scoring)
    .map((f) => `${shortFrameworkLabel(f.id)} ${f.scoring!.coverage.covered}/${f.scoring!.coverage.clauses} clauses (${f.scoring!.coverage.percent}%)`);
  if (coverage.length) writeField(doc, 'Coverage', coverage.join('; '));
  if (model.recordSha256) writeField(doc, 'Signed record SHA-256', model.recordSha256);
}

function openCounts(f: ReportModel['summary']['frameworks'][number]): string {
  const o = f.scoring?.findings.open;
  return o ? `C${o.critical} H${o.high} M${o.medium} L${o.low}` : '—';
}

function writeSummary(doc: Doc, model: ReportModel): void {
  writeSectionHeading(doc, 'Summary');
  writeParagraph(doc, `Overall score: ${model.summary.overallScore} / 100`, { size: 10, bold: true });
  doc.y += 4;
  drawTable(
    doc,
    [
      { header: 'Framework', width: 0.16, value: (row) => frameworkLabel(row.id) },
      { header: 'Score', width: 0.06, value: (row) => String(row.score), align: 'right' },
      { header: 'Status', width: 0.11, value: (row) => humanise(row.status) },
      { header: 'Coverage', width: 0.1, value: (row) => (row.scoring ? `${row.scoring.coverage.covered}/${row.scoring.coverage.clauses} (${row.scoring.coverage.percent}%)` : '—'), align: 'right' },
      { header: 'Implementation', width: 0.1, value: (row) => (row.scoring ? String(row.scoring.implementation) : '—'), align: 'right' },
      { header: 'Validation', width: 0.08, value: (row) => (row.scoring ? String(row.scoring.validation) : '—'), align: 'right' },
      { header: 'Base', width: 0.06, value: (row) => (row.scoring ? String(row.scoring.base) : '—'), align: 'right' },
      { header: 'Open findings', width: 0.1, value: openCounts },
      { header: 'Penalty / cap', width: 0.09, value: (row) => (row.scoring ? `−${row.scoring.findings.penalty} / ${row.scoring.findings.cap ?? 'none'}` : '—'), align: 'right' },
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
  writeParagraph(doc, `${r.id} — ${r.title}`, { size: 10, bold: true });
  writeField(doc, 'Framework', shortFrameworkLabel(r.framework), 9, 10);
  writeField(doc, 'Status', `${humanise(r.status)} · priority ${humanise(r.priority)} · created ${formatDate(r.createdAt)} · updated ${formatDate(r.updatedAt)}`, 9, 10);
  const validation = r.validationStatus ? `${r.validationStatus}${r.validationScore != null ? ` (score ${r.validationScore})` : ''}${r.validatedAt ? ` at ${formatTimestamp(r.validatedAt)}` : ''}` : 'not validated';
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

function writeRequirements(doc: Doc, model: ReportModel): void {
  writeSectionHeading(doc, `Requirements (${model.requirements.length})`);
  if (!model.requirements.length) writeParagraph(doc, 'No requirements in this report.', { size: 9, italic: true, color: MUTED_COLOR });
  for (const r of model.requirements) writeRequirement(doc, r);
}

function writeFinding(doc: Doc, f: ReportFindingRow, evidenceIncluded: boolean): void {
  doc.y += 6;
  ensureSpace(doc, 40);
  writeParagraph(doc, `${f.id} — ${f.title}`, { size: 10, bold: true });
  writeField(doc, 'Severity', `${humanise(f.severity)} · status ${humanise(f.status)} · ${shortFrameworkLabel(f.framework)}${f.requirementId ? ` · requirement ${f.requirementId}` : ''}`, 9, 10);
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

function writeFindings(doc: Doc, model: ReportModel): void {
  writeSectionHeading(doc, `Findings (${model.findings.length})`);
  if (!model.findings.length) writeParagraph(doc, 'No findings in this report.', { size: 9, italic: true, color: MUTED_COLOR });
  for (const f of model.findings) writeFinding(doc, f, !!model.scope?.includeEvidence);
}

/** Evidence of models without per-finding evidence (older models): one list per finding. */
function writeEvidence(doc: Doc, model: ReportModel): void {
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

function writeTraceability(doc: Doc, model: ReportModel): void {
  const m = model.traceability;
  if (!m) return;
  writeSectionHeading(doc, `Traceability matrix: ${m.frameworkName} (${m.summary.covered} of ${m.summary.clauses} clauses covered, ${m.summary.gaps} gaps)`);
  const findingList = (list: { id: string; severity: string }[]) => (list.length ? list.map((f) => `${f.id} (${f.severity})`).join(', ') : '—');
  drawTable(
    doc,
    [
      { header: 'Clause', width: 0.07, value: (c) => c.section },
      { header: 'Title', width: 0.17, value: (c) => c.title },
      { header: 'Requirements', width: 0.2, value: (c) => (c.requirements.length ? c.requirements.map((r) => `${r.id} ${humanise(r.status)}`).join('\n') : 'GAP: no requirement') },
      { header: 'Latest validation', width: 0.13, value: (c) => c.requirements.map((r) => (r.latestValidation ? `${r.latestValidation.status} ${formatDate(r.latestValidation.lastValidated)}` : 'not validated')).join('\n') || '—' },
      { header: 'Open findings', width: 0.15, value: (c) => findingList(c.requirements.flatMap((r) => r.openFindings)) },
      { header: 'Resolved findings', width: 0.15, value: (c) => findingList(c.requirements.flatMap((r) => r.resolvedFindings)) },
      { header: 'Evidence', width: 0.13, value: (c) => c.requirements.flatMap((r) => r.evidence.map((e) => e.value)).join('\n') || '—' },
    ],
    m.clauses,
    'The catalogue has no clauses.',
    (c) => (c.covered ? null : GAP_FILL),
  );
  if (!m.findingsIncluded) writeParagraph(doc, 'Findings are not shown: the requester may not read audit findings.', { size: 8, italic: true, color: MUTED_COLOR });
}

const MEANING_LABEL: Record<string, string> = { reviewed: 'Reviewed', approved: 'Approved' };

/**
 * The approval block: who prepared the report, and each signature with its meaning, or blank lines
 * to sign; `how` tells the reader how to sign and check a copy (the gateway's addresses).
 */
function writeApproval(doc: Doc, model: ReportModel, how: RenderOptions['instructions']): void {
  writeSectionHeading(doc, 'Approval');
  const signatures: ReportSignatureRow[] = model.signatures ?? [];
  const rows: { role: string; name: string; at: string; meaning: string; binding: string }[] = [
    {
      role: 'Prepared by',
      name: model.requestedBy ? `${model.requestedBy.name} (key ${model.requestedBy.keyId ?? '—'})` : 'the system',
      at: formatTimestamp(model.generatedAt),
      meaning: 'Requested and generated',
      binding: '—',
    },
    ...signatures.map((s) => ({
      role: MEANING_LABEL[s.meaning] ?? s.meaning,
      name: `${s.signerName} (key ${s.keyId})`,
      at: formatTimestamp(s.signedAt),
      meaning: `Electronically signed: ${s.meaning}`,
      binding: `record ${s.recordSha256}\nsignature ${s.signatureHash}`,
    })),
  ];
  for (const meaning of ['reviewed', 'approved'] as const) {
    if (!signatures.some((s) => s.meaning === meaning)) rows.push({ role: MEANING_LABEL[meaning], name: '', at: '', meaning: 'Not signed', binding: '' });
  }
  drawTable(
    doc,
    [
      { header: 'Role', width: 0.08, value: (r) => r.role },
      { header: 'Name', width: 0.2, value: (r) => r.name },
      { header: 'Date and time', width: 0.17, value: (r) => r.at },
      { header: 'Meaning', width: 0.16, value: (r) => r.meaning },
      { header: 'Bound to (SHA-256)', width: 0.39, value: (r) => r.binding },
    ],
    rows,
    '',
  );
  doc.y += 4;
  writeParagraph(
    doc,
    signatures.length
      ? 'Electronic signatures (21 CFR 11.50, 11.70): each shows the signer’s name, the date and time, and the meaning of the signature, and is bound to the SHA-256 of the unsigned report it approves.' +
          (how ? ` Check a copy with ${how.verify}.` : '')
      : (how ? `Not signed. A signer approves this report with ${how.sign}, stating the meaning (reviewed or approved).` : 'Not signed.') +
          ' The SHA-256 of this file is published in the report’s metadata' +
          (how ? `; check a copy with ${how.verify}.` : '.'),
    { size: 8, italic: true, color: MUTED_COLOR },
  );
}

/** Footer needs the final page count, so it is written after all content (bufferPages). */
function writeFooters(doc: Doc, model: ReportModel): void {
  const range = doc.bufferedPageRange();
  for (let index = range.start; index < range.start + range.count; index++) {
    doc.switchToPage(index);
    const { left, bottom } = doc.page.margins;
    const width = contentWidth(doc);
    const baseline = doc.page.height - bottom - FOOTER_HEIGHT + 12;
    // Writing inside the bottom margin would otherwise trigger an automatic page break.
    doc.page.margins.bottom = 0;
    const style: TextStyle = { size: 7, color: MUTED_COLOR };
    const leftText = `${model.organisation ? `${model.organisation} · ` : ''}Report ${model.reportId} · generated ${formatTimestamp(model.generatedAt)}`;
    drawLine(doc, { text: leftText, width: 0 }, left, baseline, style);
    const pageText = `Page ${index - range.start + 1} of ${range.count}`;
    drawLine(doc, { text: pageText, width: 0 }, left + width - widthOf(doc, pageText, style), baseline, style);
    doc.page.margins.bottom = bottom;
  }
}

/** pdfkit (its fonts and tables, ~7.5 MB of a process's memory) is loaded by the first PDF report, not at start-up. */
let pdfkit: typeof PDFKitDocument | undefined;
 
const pdfDocumentClass = () => (pdfkit ??= require('pdfkit') as typeof PDFKitDocument);

/** pdfkit embeds (a subset of) only the faces a report uses; the CJK faces are read from disk only then. */
function registerFaces(doc: Doc): void {
  for (const key of ['regular', 'bold', 'italic'] as const) doc.registerFont(key, face(key).bytes);
  for (const key of ['cjk', 'cjkBold'] as const) doc.registerFont(key, facePath(key));
}

export function renderPdf(model: ReportModel, options: RenderOptions = {}): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    try {
      const PDFDocument = pdfDocumentClass();
      // A fixed creation date (from the model, epoch if unparsable) keeps the
      // file ID and therefore the whole output reproducible byte for byte.
      const createdAt = parseDate(model.generatedAt) ?? new Date(0);
      const doc = new PDFDocument({
        size: 'A4',
        layout: 'landscape',
        margin: MARGIN,
        bufferPages: true,
        compress: options.compress ?? true,
        autoFirstPage: true,
        info: {
          Title: model.title,
          Author: model.organisation ?? 'Compliance reporting',
          Subject: `${model.kind} report ${model.reportId}`,
          Keywords: model.framework ?? 'all frameworks',
          Creator: 'Compliance reporting',
          CreationDate: createdAt,
          ModDate: createdAt,
        },
      });
      const chunks: Buffer[] = [];
      doc.on('data', (chunk: Buffer) => chunks.push(chunk));
      doc.on('end', () => resolve(Buffer.concat(chunks)));
      doc.on('error', reject);
      registerFaces(doc);
      doc.y = doc.page.margins.top;

      writeHeader(doc, model);
      writeSummary(doc, model);
      if (model.kind !== 'summary') {
        if (model.kind !== 'audit') writeRequirements(doc, model);
        if (model.kind !== 'requirements') writeFindings(doc, model);
        writeEvidence(doc, model);
      }
      writeTraceability(doc, model);
      writeApproval(doc, model, options.instructions);
      writeFooters(doc, model);
      doc.end();
    } catch (error) {
      reject(error);
    }
  });
}
