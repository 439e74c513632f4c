import type PDFKitDocument from 'pdfkit';
import { getFramework } from '../../catalogue/frameworks';
import type { RenderOptions, ReportFindingRow, ReportModel } from './types';

type Doc = PDFKit.PDFDocument;

const MARGIN = 40;
const FOOTER_HEIGHT = 18;
const CELL_PADDING = 3;
const TABLE_FONT_SIZE = 8;
/** Long free text is clipped so a single row can never exceed a page. */
const MAX_CELL_CHARS = 400;
const FONT = 'Helvetica';
const FONT_BOLD = 'Helvetica-Bold';
const FONT_ITALIC = 'Helvetica-Oblique';
const TEXT_COLOR = '#111111';
const MUTED_COLOR = '#555555';
const HEADER_FILL = '#e6e9ef';
const RULE_COLOR = '#c8ccd4';

/*
 * The built-in Helvetica only has WinAnsi glyphs; pdfkit silently writes
 * garbage for anything else. Map everything outside that set to "?" so the
 * output is always readable (the JSON/CSV exports keep the exact text).
 */
const WIN_ANSI_EXTRAS = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

export function toWinAnsi(text: string): string {
  let result = '';
  for (const char of text.normalize('NFC').replace(/\r\n?/g, '\n').replace(/\t/g, ' ')) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '\n' || (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRAS.has(char)) {
      result += char;
    } else if (code >= 0x20) {
      result += '?';
    }
  }
  return result;
}

function clip(text: string, max = MAX_CELL_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

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

function formatTimestamp(value: string): string {
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

function contentWidth(doc: Doc): number {
  return doc.page.width - doc.page.margins.left - doc.page.margins.right;
}

function contentBottom(doc: Doc): number {
  return doc.page.height - doc.page.margins.bottom - FOOTER_HEIGHT;
}

/** Starts a new page unless `height` points still fit above the footer. */
function ensureSpace(doc: Doc, height: number): void {
  if (doc.y + height > contentBottom(doc)) doc.addPage();
}

function writeParagraph(doc: Doc, text: string, font = FONT, size = 10, color = TEXT_COLOR): void {
  const safe = toWinAnsi(text);
  doc.font(font).fontSize(size);
  ensureSpace(doc, doc.heightOfString(safe, { width: contentWidth(doc) }));
  doc.fillColor(color).text(safe, doc.page.margins.left, doc.y, { width: contentWidth(doc) });
}

function writeSectionHeading(doc: Doc, text: string): void {
  doc.moveDown(0.8);
  // Keep a heading together with at least a table header and one row.
  ensureSpace(doc, 60);
  writeParagraph(doc, text, FONT_BOLD, 12);
  doc.moveDown(0.3);
}

interface Column<Row> {
  header: string;
  /** Fraction of the content width. */
  width: number;
  value: (row: Row) => string;
  align?: 'left' | 'right';
}

function measureRow(doc: Doc, cells: string[], widths: number[], header: boolean): number {
  doc.font(header ? FONT_BOLD : FONT).fontSize(TABLE_FONT_SIZE);
  return Math.max(...cells.map((cell, i) => doc.heightOfString(cell, { width: widths[i] - 2 * CELL_PADDING }))) + 2 * CELL_PADDING;
}

function drawRow(doc: Doc, cells: string[], widths: number[], aligns: ('left' | 'right')[], y: number, header: boolean): number {
  const height = measureRow(doc, cells, widths, header);
  const left = doc.page.margins.left;
  const total = widths.reduce((sum, width) => sum + width, 0);
  if (header) doc.rect(left, y, total, height).fill(HEADER_FILL);
  let x = left;
  cells.forEach((cell, i) => {
    doc.fillColor(TEXT_COLOR).text(cell, x + CELL_PADDING, y + CELL_PADDING, {
      width: widths[i] - 2 * CELL_PADDING,
      align: aligns[i],
    });
    x += widths[i];
  });
  doc.moveTo(left, y + height).lineTo(left + total, y + height).lineWidth(0.5).strokeColor(RULE_COLOR).stroke();
  return height;
}

/** Draws a table, repeating the header row on every page it spills onto. */
function drawTable<Row>(doc: Doc, columns: Column<Row>[], rows: readonly Row[], emptyText: string): void {
  if (rows.length === 0) {
    writeParagraph(doc, emptyText, FONT_ITALIC, 9, MUTED_COLOR);
    return;
  }
  const available = contentWidth(doc);
  const widths = columns.map((column) => column.width * available);
  const aligns = columns.map((column) => column.align ?? 'left');
  const headers = columns.map((column) => toWinAnsi(column.header));
  const body = rows.map((row) => columns.map((column) => clip(toWinAnsi(column.value(row)))));

  const headerHeight = measureRow(doc, headers, widths, true);
  ensureSpace(doc, headerHeight + measureRow(doc, body[0], widths, false));
  let y = doc.y;
  y += drawRow(doc, headers, widths, aligns, y, true);
  for (const cells of body) {
    const height = measureRow(doc, cells, widths, false);
    if (y + height > contentBottom(doc)) {
      doc.addPage();
      y = doc.page.margins.top;
      y += drawRow(doc, headers, widths, aligns, y, true);
    }
    y += drawRow(doc, cells, widths, aligns, y, false);
  }
  doc.x = doc.page.margins.left;
  doc.y = y;
}

function writeHeader(doc: Doc, model: ReportModel): void {
  writeParagraph(doc, model.title, FONT_BOLD, 18);
  doc.moveDown(0.3);
  const kind = `${model.kind.charAt(0).toUpperCase()}${model.kind.slice(1)} report`;
  writeParagraph(doc, `${kind} · ${frameworkLabel(model.framework)} · Report ID ${model.reportId}`, FONT, 10, MUTED_COLOR);
  writeParagraph(doc, `Generated: ${formatTimestamp(model.generatedAt)}`, FONT, 10, MUTED_COLOR);
  writeParagraph(doc, `Period: ${describePeriod(model.period)}`, FONT, 10, MUTED_COLOR);
}

function writeSummary(doc: Doc, model: ReportModel): void {
  writeSectionHeading(doc, 'Summary');
  writeParagraph(doc, `Overall score: ${model.summary.overallScore} / 100`, FONT_BOLD, 10);
  doc.moveDown(0.4);
  drawTable(
    doc,
    [
      { header: 'Framework', width: 0.3, value: (row) => frameworkLabel(row.id) },
      { header: 'Score', width: 0.1, value: (row) => String(row.score), align: 'right' },
      { header: 'Status', width: 0.15, value: (row) => humanise(row.status) },
      { header: 'Total', width: 0.1, value: (row) => String(row.total), align: 'right' },
      { header: 'Completed', width: 0.12, value: (row) => String(row.completed), align: 'right' },
      { header: 'In progress', width: 0.12, value: (row) => String(row.inProgress), align: 'right' },
      { header: 'Pending', width: 0.11, value: (row) => String(row.pending), align: 'right' },
    ],
    model.summary.frameworks,
    'No framework summary available.',
  );
}

function writeRequirements(doc: Doc, model: ReportModel): void {
  writeSectionHeading(doc, `Requirements (${model.requirements.length})`);
  drawTable(
    doc,
    [
      { header: 'ID', width: 0.11, value: (row) => row.id },
      { header: 'Title', width: 0.33, value: (row) => row.title },
      { header: 'Framework', width: 0.12, value: (row) => shortFrameworkLabel(row.framework) },
      { header: 'Status', width: 0.09, value: (row) => humanise(row.status) },
      { header: 'Priority', width: 0.07, value: (row) => humanise(row.priority) },
      { header: 'Validation', width: 0.09, value: (row) => humanise(row.validationStatus) },
      { header: 'Created', width: 0.095, value: (row) => formatDate(row.createdAt) },
      { header: 'Updated', width: 0.095, value: (row) => formatDate(row.updatedAt) },
    ],
    model.requirements,
    'No requirements in this report.',
  );
}

function writeFindings(doc: Doc, model: ReportModel): void {
  writeSectionHeading(doc, `Findings (${model.findings.length})`);
  drawTable(
    doc,
    [
      { header: 'ID', width: 0.11, value: (row) => row.id },
      { header: 'Title', width: 0.32, value: (row) => row.title },
      { header: 'Framework', width: 0.12, value: (row) => shortFrameworkLabel(row.framework) },
      { header: 'Severity', width: 0.08, value: (row) => humanise(row.severity) },
      { header: 'Status', width: 0.085, value: (row) => humanise(row.status) },
      { header: 'Discovered', width: 0.095, value: (row) => formatDate(row.discoveredAt) },
      { header: 'Due', width: 0.095, value: (row) => formatDate(row.dueDate) },
      { header: 'Resolved', width: 0.095, value: (row) => formatDate(row.resolvedAt) },
    ],
    model.findings,
    'No findings in this report.',
  );
}

function writeEvidence(doc: Doc, model: ReportModel): void {
  const entries = (model.evidence ?? []).filter((entry) => entry.items.length > 0);
  if (entries.length === 0) return;
  const findingsById = new Map<string, ReportFindingRow>(model.findings.map((finding) => [finding.id, finding]));
  writeSectionHeading(doc, 'Evidence');
  for (const entry of entries) {
    const finding = findingsById.get(entry.findingId);
    doc.moveDown(0.3);
    ensureSpace(doc, 30);
    writeParagraph(doc, finding ? `Finding ${entry.findingId}: ${finding.title}` : `Finding ${entry.findingId}`, FONT_BOLD, 9);
    for (const item of entry.items) writeParagraph(doc, `•  ${clip(item)}`, FONT, 9);
  }
}

/** Footer needs the final page count, so it is written after all content (bufferPages). */
function writeFooters(doc: Doc, model: ReportModel): void {
  const range = doc.bufferedPageRange();
  for (let index = range.start; index < range.start + range.count; index++) {
    doc.switchToPage(index);
    const { left, bottom } = doc.page.margins;
    const width = contentWidth(doc);
    const y = doc.page.height - bottom - FOOTER_HEIGHT + 6;
    // Writing inside the bottom margin would otherwise trigger an automatic page break.
    doc.page.margins.bottom = 0;
    doc.font(FONT).fontSize(7).fillColor(MUTED_COLOR);
    doc.text(toWinAnsi(`Report ${model.reportId} · generated ${formatTimestamp(model.generatedAt)}`), left, y, {
      width,
      align: 'left',
      lineBreak: false,
    });
    doc.text(`Page ${index - range.start + 1} of ${range.count}`, left, y, { width, align: 'right', lineBreak: false });
    doc.page.margins.bottom = bottom;
  }
}

/** pdfkit (its fonts and tables, ~7.5 MB of a process's memory) is loaded by the first PDF report, not at start-up. */
let pdfkit: typeof PDFKitDocument | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const pdfDocumentClass = () => (pdfkit ??= require('pdfkit') as typeof PDFKitDocument);

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
        font: FONT,
        info: {
          Title: model.title,
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

      writeHeader(doc, model);
      writeSummary(doc, model);
      writeRequirements(doc, model);
      writeFindings(doc, model);
      writeEvidence(doc, model);
      writeFooters(doc, model);
      doc.end();
    } catch (error) {
      reject(error);
    }
  });
}
