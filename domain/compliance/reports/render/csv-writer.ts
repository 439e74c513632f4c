/**
 * Minimal RFC 4180 writer: CRLF record separators, fields quoted only when
 * they contain a comma, double quote, CR or LF, and embedded quotes doubled.
 */

export type CsvCell = string | number | boolean | null | undefined;

/** Characters that make spreadsheet applications evaluate a cell as a formula. */
const FORMULA_TRIGGER = /^[=+\-@\t\r]/;

/**
 * Prefixes a `'` to text that a spreadsheet would treat as a formula
 * (OWASP "CSV injection"). Applied to text only: numbers we emit ourselves
 * (e.g. negative values) must stay numeric.
 */
export function neutraliseFormula(value: string): string {
  return FORMULA_TRIGGER.test(value) ? `'${value}` : value;
}

export function escapeCsvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function formatCsvCell(cell: CsvCell): string {
  if (cell === null || cell === undefined) return '';
  if (typeof cell === 'number') return Number.isFinite(cell) ? String(cell) : '';
  if (typeof cell === 'boolean') return cell ? 'true' : 'false';
  return escapeCsvField(neutraliseFormula(cell));
}

/** Serialises rows; every record, including the last, ends with CRLF. */
export function toCsv(rows: readonly (readonly CsvCell[])[]): string {
  return rows.map((row) => `${row.map(formatCsvCell).join(',')}\r\n`).join('');
}
