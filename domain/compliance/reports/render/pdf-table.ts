import { directionOf } from './bidi';
import {
  artifact,
  ascentOf,
  breakLines,
  contentBottom,
  contentWidth,
  drawLine,
  group,
  LINE_HEIGHT,
  MUTED_COLOR,
  newPage,
  tagged,
  widestToken,
  writeParagraph,
  type Doc,
  type Line,
  type TextStyle,
} from './pdf-text';

/** Tables: cells laid out to their column, rows broken across pages with the header repeated, tagged Table/TR/TH/TD. */
const CELL_PADDING = 3;
const TABLE_FONT_SIZE = 8;
/**
 * Cells shrink their type down to this so an identifier never has to break; an identifier still too
 * wide at this size is broken rather than set too small to read (issue 35: finding ids at ~5 pt).
 */
const MIN_CELL_FONT_SIZE = 6.5;
const HEADER_FILL = '#e6e9ef';
const RULE_COLOR = '#c8ccd4';

export interface Column<Row> {
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

/** Splits a token too wide for the cell even at the smallest size, at character boundaries. */
function breakToken(doc: Doc, text: string, inner: number, style: TextStyle): Line[] {
  const lines: Line[] = [];
  for (const line of breakLines(doc, text, inner, style)) {
    if (line.width <= inner) {
      lines.push(line);
      continue;
    }
    let part = '';
    for (const char of line.text) {
      const next = part + char;
      if (part && widestToken(doc, next, style) > inner) {
        lines.push({ text: part, width: widestToken(doc, part, style), direction: line.direction });
        part = char.trimStart();
      } else part = next;
    }
    if (part) lines.push({ text: part, width: widestToken(doc, part, style), direction: line.direction });
  }
  return lines;
}

/** Lays a cell out; the type shrinks (not below MIN_CELL_FONT_SIZE) until its widest token fits. */
function layoutCell(doc: Doc, text: string, width: number, bold: boolean): Cell {
  const inner = width - 2 * CELL_PADDING;
  let size = TABLE_FONT_SIZE;
  const widest = widestToken(doc, text, { size, bold });
  if (widest > inner) size = Math.max(MIN_CELL_FONT_SIZE, Math.floor(((size * inner) / widest) * 10) / 10);
  const style: TextStyle = { size, bold };
  return { lines: breakToken(doc, text, inner, style), style };
}

const cellHeight = (cell: Cell) => cell.lines.length * cell.style.size * LINE_HEIGHT;

function drawRow(doc: Doc, cells: Cell[], widths: number[], aligns: ('left' | 'right')[], y: number, fill: string | null, header: boolean): number {
  const height = Math.max(...cells.map(cellHeight)) + 2 * CELL_PADDING;
  const left = doc.page.margins.left;
  const total = widths.reduce((sum, width) => sum + width, 0);
  if (fill) artifact(doc, () => doc.rect(left, y, total, height).fill(fill));
  group(doc, 'TR', () => {
    let x = left;
    cells.forEach((cell, i) => {
      tagged(doc, header ? 'TH' : 'TD', () => {
        let lineY = y + CELL_PADDING;
        for (const line of cell.lines) {
          // Right-to-left text is set flush right in a left-aligned column.
          const right = aligns[i] === 'right' || (line.direction ?? directionOf(line.text)) === 'rtl';
          const lineX = right ? x + widths[i] - CELL_PADDING - line.width : x + CELL_PADDING;
          drawLine(doc, line, lineX, lineY + ascentOf(cell.style.size), cell.style);
          lineY += cell.style.size * LINE_HEIGHT;
        }
      });
      x += widths[i];
    });
  });
  artifact(doc, () =>
    doc
      .moveTo(left, y + height)
      .lineTo(left + total, y + height)
      .lineWidth(0.5)
      .strokeColor(RULE_COLOR)
      .stroke(),
  );
  return height;
}

/** Draws a table, repeating the header row on every page it spills onto. */
export function drawTable<Row>(
  doc: Doc,
  columns: Column<Row>[],
  rows: readonly Row[],
  emptyText: string,
  fillOf: (row: Row) => string | null = () => null,
): void {
  if (rows.length === 0) {
    if (emptyText) writeParagraph(doc, emptyText, { size: 9, italic: true, color: MUTED_COLOR });
    return;
  }
  const widths = columns.map((column) => column.width * contentWidth(doc));
  const aligns = columns.map((column) => column.align ?? 'left');
  const header = columns.map((column, i) => layoutCell(doc, column.header, widths[i], true));
  const headerHeight = Math.max(...header.map(cellHeight)) + 2 * CELL_PADDING;
  let y = doc.y;
  let first = true;
  group(doc, 'Table', () => {
    for (const row of rows) {
      const cells = columns.map((column, i) => layoutCell(doc, column.value(row), widths[i], false));
      const height = Math.max(...cells.map(cellHeight)) + 2 * CELL_PADDING;
      if (first || y + height > contentBottom(doc)) {
        if (!first || y + headerHeight + height > contentBottom(doc)) {
          newPage(doc);
          y = doc.page.margins.top;
        }
        y += drawRow(doc, header, widths, aligns, y, HEADER_FILL, true);
        first = false;
      }
      y += drawRow(doc, cells, widths, aligns, y, fillOf(row), false);
    }
  });
  doc.x = doc.page.margins.left;
  doc.y = y;
}
