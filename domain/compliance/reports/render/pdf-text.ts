import { directionOf, visualRuns, type Direction } from './bidi';
import type { FaceKey, Style } from './fonts';
import { mapRtlGlyphs } from './pdfkit-seam';

/**
 * Text on the page: line breaking, fonts run by run, bidi order and shaping (bidi.ts), paragraphs
 * and fields, page breaks, and the structure tags of a tagged PDF (each paragraph a P, headings H1/H2,
 * drawn furniture an artifact).
 */
export type Doc = PDFKit.PDFDocument;
type PDFStructureElement = PDFKit.PDFStructureElement;

export const FOOTER_HEIGHT = 18;
export const LINE_HEIGHT = 1.3;
export const TEXT_COLOR = '#111111';
export const MUTED_COLOR = '#555555';

export interface TextStyle extends Style {
  size: number;
  color?: string;
}

export interface Line {
  text: string;
  width: number;
  /** The paragraph's direction (by its first strong character); by the line's own text when absent. */
  direction?: Direction;
}

/**
 * Break opportunities: after whitespace and around each CJK character (those scripts do not use
 * spaces). Anything else — identifiers, hashes, paths, a word of Arabic — is one token and never split.
 */
const TOKEN = /\s+|[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]|[^\s\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]+/gu;

export function normalise(text: string): string {
  return text
    .normalize('NFC')
    .replace(/\r\n?/g, '\n')
    .replace(/\t/g, ' ')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
}

function useFace(doc: Doc, key: FaceKey, size: number): Doc {
  return doc.font(key).fontSize(size);
}

/** Right-to-left runs are shaped as one piece (pdfkit otherwise lays a run out word by word, in logical word order). */
const featuresOf = (rtl: boolean) => (rtl ? { features: [] as PDFKit.Mixins.OpenTypeFeatures[] } : {});

export function widthOf(doc: Doc, text: string, style: TextStyle, direction: Direction = directionOf(text)): number {
  let width = 0;
  for (const run of visualRuns(text, style, direction)) width += useFace(doc, run.face, style.size).widthOfString(run.text, featuresOf(run.rtl));
  return width;
}

/** Greedy line breaking at break opportunities, in logical order; a token wider than the line stands alone on it. */
export function breakLines(doc: Doc, text: string, width: number, style: TextStyle): Line[] {
  const lines: Line[] = [];
  for (const paragraph of normalise(text).split('\n')) {
    const direction = directionOf(paragraph);
    let line = '';
    let lineWidth = 0;
    let pending = '';
    for (const token of paragraph.match(TOKEN) ?? []) {
      if (/^\s+$/u.test(token)) {
        if (line) pending = ' ';
        continue;
      }
      const tokenWidth = widthOf(doc, token, style, direction);
      const gap = pending ? widthOf(doc, pending, style, direction) : 0;
      if (line && lineWidth + gap + tokenWidth > width) {
        lines.push({ text: line, width: lineWidth, direction });
        line = token;
        lineWidth = tokenWidth;
      } else {
        line += pending + token;
        lineWidth += gap + tokenWidth;
      }
      pending = '';
    }
    lines.push({ text: line, width: lineWidth, direction });
  }
  return lines;
}

/** The widest unbreakable token of a text, in points at `style.size`. */
export function widestToken(doc: Doc, text: string, style: TextStyle): number {
  let widest = 0;
  for (const token of normalise(text).match(TOKEN) ?? []) if (!/^\s+$/u.test(token)) widest = Math.max(widest, widthOf(doc, token, style));
  return widest;
}

/** Draws one line, run by run in display order (bidi), on a common baseline. */
export function drawLine(doc: Doc, line: Line, x: number, baseline: number, style: TextStyle): void {
  // pdfkit moves its cursor after each text() call; the layout here keeps its own.
  const { x: keepX, y: keepY } = doc;
  let cursor = x;
  for (const run of visualRuns(line.text, style, line.direction ?? directionOf(line.text))) {
    const d = useFace(doc, run.face, style.size).fillColor(style.color ?? TEXT_COLOR);
    if (run.rtl) mapRtlGlyphs(d, run.text);
    d.text(run.text, cursor, baseline, { lineBreak: false, baseline: 'alphabetic', ...featuresOf(run.rtl) });
    cursor += d.widthOfString(run.text, featuresOf(run.rtl));
  }
  doc.x = keepX;
  doc.y = keepY;
}

export const ascentOf = (size: number) => size * 0.95;

export function contentWidth(doc: Doc): number {
  return doc.page.width - doc.page.margins.left - doc.page.margins.right;
}

export function contentBottom(doc: Doc): number {
  return doc.page.height - doc.page.margins.bottom - FOOTER_HEIGHT;
}

/** A new page that continues the open marked content (the tag of a paragraph or table cell broken across pages). */
export function newPage(doc: Doc): void {
  doc.continueOnNewPage();
  doc.y = doc.page.margins.top;
}

/** Starts a new page unless `height` points still fit above the footer. */
export function ensureSpace(doc: Doc, height: number): void {
  if (doc.y + height > contentBottom(doc)) newPage(doc);
}

// ---------- structure tags (tagged PDF) ----------

const parents = new WeakMap<Doc, PDFStructureElement[]>();

/** The document's structure root; every tagged element goes under it (or under an open group). */
export function startStructure(doc: Doc): void {
  const root = doc.struct('Document');
  doc.addStructure(root);
  parents.set(doc, [root]);
}

export function endStructure(doc: Doc): void {
  parents.get(doc)?.[0]?.end();
}

const parentOf = (doc: Doc) => parents.get(doc)?.at(-1);

/** Inside a block (below), content joins the block's element instead of making its own. */
const inBlock = new WeakSet<Doc>();

/** Content drawn by `draw` as one structure element (P, H1, TD …); untagged when the document has no structure. */
export function tagged(doc: Doc, type: string, draw: () => void): void {
  const parent = parentOf(doc);
  if (!parent || inBlock.has(doc)) return draw();
  const element = doc.struct(type, {}, draw);
  parent.add(element);
  element.end();
}

/**
 * A run of paragraphs tagged as one element (a requirement or a finding with its fields): a report
 * of 10,000 requirements would otherwise carry some 80,000 structure elements, tripling its size.
 */
export function block(doc: Doc, type: string, draw: () => void): void {
  tagged(doc, type, () => {
    inBlock.add(doc);
    try {
      draw();
    } finally {
      inBlock.delete(doc);
    }
  });
}

/** A structure element holding others (Table, TR, Sect): `build` adds its children. */
export function group(doc: Doc, type: string, build: () => void): void {
  const parent = parentOf(doc);
  if (!parent) return build();
  const element = doc.struct(type);
  parent.add(element);
  parents.get(doc)!.push(element);
  try {
    build();
  } finally {
    parents.get(doc)!.pop();
    element.end();
  }
}

/** Drawing that is not content (fills, rules, page numbers): marked as an artifact. */
export function artifact(doc: Doc, draw: () => void, type?: 'Pagination' | 'Layout'): void {
  if (!parentOf(doc)) return draw();
  doc.markContent('Artifact', type ? { type } : undefined);
  draw();
  doc.endMarkedContent();
}

// ---------- paragraphs ----------

/** A paragraph across the content width (or from `indent`), breaking pages between lines; right-to-left paragraphs are set flush right. */
export function writeParagraph(doc: Doc, text: string, style: TextStyle, indent = 0, type = 'P'): void {
  tagged(doc, type, () => {
    const left = doc.page.margins.left + indent;
    const width = contentWidth(doc) - indent;
    const lineHeight = style.size * LINE_HEIGHT;
    for (const line of breakLines(doc, text, width, style)) {
      ensureSpace(doc, lineHeight);
      const x = line.direction === 'rtl' ? left + width - line.width : left;
      drawLine(doc, line, x, doc.y + ascentOf(style.size), style);
      doc.y += lineHeight;
    }
    doc.x = doc.page.margins.left;
  });
}

/** "Label: value" with the label in bold. */
export function writeField(doc: Doc, label: string, value: string, size = 9, indent = 0): void {
  tagged(doc, 'P', () => {
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
  });
}

export function writeSectionHeading(doc: Doc, text: string): void {
  doc.y += 12;
  // Keep a heading together with what follows it.
  ensureSpace(doc, 60);
  writeParagraph(doc, text, { size: 12, bold: true }, 0, 'H2');
  doc.y += 4;
}
