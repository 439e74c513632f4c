import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { renderReport, type RenderOptions, type ReportFormat, type ReportModel } from './render';

/**
 * One report rendered in a worker thread (render-off-thread.ts): the model comes in by structured
 * clone, the file goes back as a transferred buffer. The thread ends with the render, so its heap
 * (fonts, PDF objects of a 10,000-requirement report) is given back at once.
 */
/** Linux gives each thread its own nice value: a report yields the CPU to the event loop's thread when both want it. */
const RENDER_NICE = 10;
try {
  os.setPriority(0, RENDER_NICE);
} catch {
  // Not permitted or not supported here: the render runs at the process's priority.
}

const task = workerData as { format: ReportFormat; model: ReportModel; options: RenderOptions; entry?: string };
renderReport(task.format, task.model, task.options).then(
  (content) => {
    const bytes = new Uint8Array(content.length);
    bytes.set(content);
    parentPort!.postMessage({ ok: true, bytes }, [bytes.buffer]);
  },
  (err) => parentPort!.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) }),
);
