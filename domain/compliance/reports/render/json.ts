import type { ReportModel } from './types';

/** Pretty-printed so exported files diff cleanly; trailing newline for POSIX tools. */
export function renderJson(model: ReportModel): Buffer {
  return Buffer.from(`${JSON.stringify(model, null, 2)}\n`, 'utf8');
}
