import { renderCsv } from './csv';
import { renderJson } from './json';
import { renderPdf } from './pdf';
import type { RenderOptions, ReportFormat, ReportModel } from './types';

export * from './types';
export { renderCsv, CSV_COLUMNS } from './csv';
export type { CsvColumn } from './csv';
export { toCsv, escapeCsvField, neutraliseFormula, formatCsvCell } from './csv-writer';
export type { CsvCell } from './csv-writer';
export { renderJson } from './json';
export { renderPdf } from './pdf';

/** Renders a report model in the requested format. Pure apart from CPU: no I/O, no clock. */
export async function renderReport(format: ReportFormat, model: ReportModel, options: RenderOptions = {}): Promise<Buffer> {
  switch (format) {
    case 'pdf':
      return renderPdf(model, options);
    case 'csv':
      return renderCsv(model);
    case 'json':
      return renderJson(model);
    default: {
      // Reachable from untyped callers (query strings), so fail loudly.
      const unsupported: never = format;
      throw new RangeError(`Unsupported report format: ${String(unsupported)}`);
    }
  }
}
