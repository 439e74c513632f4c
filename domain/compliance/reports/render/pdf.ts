import type PDFKitDocument from 'pdfkit';
import { face, facePath } from './fonts';
import { formatTimestamp, parseDate } from './pdf-format';
import { writeApproval, writeEvidence, writeFindings, writeHeader, writeRequirements, writeSummary, writeTraceability } from './pdf-sections';
import { artifact, contentWidth, drawLine, endStructure, FOOTER_HEIGHT, MUTED_COLOR, startStructure, widthOf, type Doc, type TextStyle } from './pdf-text';
import { escapeXmpInfo } from './pdfkit-seam';
import type { RenderOptions, ReportModel } from './types';

/**
 * PDF reports, made to be archived (issue 35): PDF/A-2b (PDF 1.7, every font embedded, sRGB output
 * intent, XMP metadata with pdfaid part 2 conformance B), tagged (a structure tree of headings,
 * paragraphs and tables; furniture marked as artifacts) with the document language set.
 * Text layout lives in pdf-text.ts (bidi and shaping in bidi.ts), tables in pdf-table.ts, the
 * sections in pdf-sections.ts.
 */
const MARGIN = 40;
/** The language of the report's own words (labels, headings); data in other scripts is set as written. */
export const REPORT_LANGUAGE = 'en';

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
    const pageText = `Page ${index - range.start + 1} of ${range.count}`;
    artifact(
      doc,
      () => {
        drawLine(doc, { text: leftText, width: 0 }, left, baseline, style);
        drawLine(doc, { text: pageText, width: 0 }, left + width - widthOf(doc, pageText, style), baseline, style);
      },
      'Pagination',
    );
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
        pdfVersion: '1.7',
        subset: 'PDF/A-2b',
        tagged: true,
        lang: REPORT_LANGUAGE,
        displayTitle: true,
        info: {
          Title: model.title,
          Author: model.organisation ?? 'Compliance reporting',
          Subject: `${model.kind} report ${model.reportId}`,
          Keywords: model.framework ?? 'all frameworks',
          Creator: 'Compliance reporting',
          // No ModDate: PDF/A wants every Info entry mirrored in XMP, and pdfkit's XMP has no xmp:ModifyDate.
          CreationDate: createdAt,
        },
      });
      escapeXmpInfo(doc);
      const chunks: Buffer[] = [];
      doc.on('data', (chunk: Buffer) => chunks.push(chunk));
      doc.on('end', () => resolve(Buffer.concat(chunks)));
      doc.on('error', reject);
      registerFaces(doc);
      doc.y = doc.page.margins.top;
      startStructure(doc);

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
      endStructure(doc);
      doc.end();
    } catch (error) {
      reject(error);
    }
  });
}
