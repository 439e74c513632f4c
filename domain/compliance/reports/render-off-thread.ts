import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { RenderOptions, ReportFormat, ReportModel } from './render';

export type ReportRenderer = (format: ReportFormat, model: ReportModel, options: RenderOptions) => Promise<Buffer>;

/**
 * Renders reports off the event loop (issue 37: a 10,000-requirement PDF stalled every request for
 * ~30 s). Each render runs in a worker thread of its own, at most `concurrency` at once in this
 * process (more wait their turn); the renderer's functions are used as they are. Under jest (no
 * compiled build) the thread loads the TypeScript sources through domain/util/worker-from-sources.cjs.
 */
export function workerRenderer(opts: { concurrency?: number; resourceLimits?: { maxOldGenerationSizeMb?: number } } = {}): ReportRenderer {
  const concurrency = Math.max(1, opts.concurrency ?? 1);
  let running = 0;
  const waiting: (() => void)[] = [];
  const ext = path.extname(__filename);
  const entry = path.join(__dirname, `render-thread${ext}`);
  const script = ext === '.ts' ? path.join(__dirname, '..', '..', 'util', 'worker-from-sources.cjs') : entry;
  const runOne = (format: ReportFormat, model: ReportModel, options: RenderOptions) =>
    new Promise<Buffer>((resolve, reject) => {
      const worker = new Worker(script, {
        workerData: { entry, format, model, options },
        resourceLimits: { maxOldGenerationSizeMb: opts.resourceLimits?.maxOldGenerationSizeMb ?? 1024 },
      });
      let settled = false;
      worker.once('message', (m: { ok: true; bytes: Uint8Array } | { ok: false; message: string }) => {
        settled = true;
        if (m.ok) resolve(Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength));
        else reject(new Error(`report rendering failed: ${m.message}`));
        void worker.terminate();
      });
      worker.once('error', (err) => {
        if (!settled) reject(err);
        settled = true;
      });
      worker.once('exit', (code) => {
        if (!settled) reject(new Error(`report rendering thread exited (${code})`));
        settled = true;
      });
    });
  return async (format, model, options) => {
    if (running >= concurrency) await new Promise<void>((r) => waiting.push(r));
    running++;
    try {
      return await runOne(format, model, options);
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}
