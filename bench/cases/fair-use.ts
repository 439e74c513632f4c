import { load } from '../lib/load';
import { treeRssMb as rssMb, type Child } from '../lib/proc';
import type { Report } from '../lib/report';
import { longText } from '../lib/text';

/**
 * Fair use under a flood of long texts (issue #12), on a gateway with the default speech budgets
 * (`TTS_CHARS_PER_MINUTE`, per-client and server-wide concurrency, admission queue). Clients are told
 * apart by address (`TRUST_PROXY=loopback`, `X-Forwarded-For`), as behind a balancer:
 *
 * - peak RSS of one 100,000-character progressive generation over the idle RSS, and RSS within a
 *   minute after it;
 * - 20 concurrent 100,000-character progressive generations from one client while a second client
 *   reads a hot audio file: that client's p99;
 * - RSS back near idle afterwards.
 */
const CHARS = 100_000;
const FLOOD = 20;

/** One progressive generation, read to its end; the HTTP status (a refusal comes before the stream). */
async function progressive(url: string, client: string, text: string): Promise<number> {
  const res = await fetch(`${url}/api/v1/generate-progressive`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-forwarded-for': client },
    body: JSON.stringify({ text, options: { provider: 'mock', format: 'mp3' } }),
  });
  const body = await res.text();
  if (res.status === 200 && !body.includes('"type":"complete"')) throw new Error(`progressive stream ended without complete: ${body.slice(-300)}`);
  return res.status;
}

/** Samples RSS every 50 ms while `work` runs; the peak. */
async function peakRss<T>(pid: number, work: Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = rssMb(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
  try {
    return { result: await work, peak };
  } finally {
    clearInterval(sampler);
  }
}

/** Waits up to `ms` for RSS to come within 10 % of `idle`; the last reading. */
async function settleRss(pid: number, idle: number, ms = 60_000): Promise<{ rss: number; afterMs: number }> {
  const t0 = Date.now();
  let rss = rssMb(pid);
  while (rss > idle * 1.1 && Date.now() - t0 < ms) {
    await new Promise((r) => setTimeout(r, 1000));
    rss = rssMb(pid);
  }
  return { rss, afterMs: Date.now() - t0 };
}

export async function runFairUseCase(report: Report, gw: Child) {
  // The reader's hot file.
  const gen = await fetch(`${gw.url}/api/v1/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.0.0.2' },
    body: JSON.stringify({ text: 'A short greeting for the hot tier.', options: { provider: 'mock', format: 'mp3' } }),
  });
  if (gen.status !== 200) throw new Error(`fair-use: generate answered ${gen.status}`);
  const audioUrl = `${gw.url}${((await gen.json()) as { audioUrl: string }).audioUrl}`;
  await load({ url: audioUrl, headers: { 'x-forwarded-for': '10.0.0.2' }, durationSeconds: 2, connections: 10 });
  await new Promise((r) => setTimeout(r, 2000));
  const idle = rssMb(gw.pid);

  // One 100,000-character generation.
  const t0 = performance.now();
  const one = await peakRss(gw.pid, progressive(gw.url, '10.0.0.3', longText(CHARS)));
  const oneMs = performance.now() - t0;
  if (one.result !== 200) throw new Error(`fair-use: one generation answered ${one.result}`);
  const afterOne = await settleRss(gw.pid, idle);
  report.note(
    `fair-use: one ${CHARS}-char progressive mp3 generation took ${oneMs.toFixed(0)} ms; RSS idle ${idle.toFixed(1)} MB, peak ${one.peak.toFixed(1)} MB, ${(afterOne.afterMs / 1000).toFixed(0)} s later ${afterOne.rss.toFixed(1)} MB`,
  );
  report.budget(`peak RSS over idle (MB), one ${CHARS}-char generation`, Math.round(one.peak - idle), '<=', 64, 'count');
  report.budget('RSS a minute after one long generation, over idle', (afterOne.rss - idle) / idle, '<=', 0.1, 'percent');

  // The flood, and the other client's reads while it lasts.
  const flood = Promise.all(Array.from({ length: FLOOD }, () => progressive(gw.url, '10.0.0.1', longText(CHARS))));
  const floodStarted = performance.now();
  const during = await peakRss(
    gw.pid,
    (async () => {
      const reads = [];
      let done = false;
      void flood.finally(() => (done = true));
      // Read for as long as the flood lasts (at least one run), 10 connections.
      do reads.push(await load({ url: audioUrl, headers: { 'x-forwarded-for': '10.0.0.2' }, durationSeconds: 5, connections: 10 }));
      while (!done);
      return reads;
    })(),
  );
  const statuses = await flood;
  const floodMs = performance.now() - floodStarted;
  const reads = during.result;
  const p99 = Math.max(...reads.map((r) => r.p99));
  const total = reads.reduce((a, r) => a + r.requests, 0);
  const counts = statuses.reduce<Record<number, number>>((acc, s) => ((acc[s] = (acc[s] ?? 0) + 1), acc), {});
  const afterFlood = await settleRss(gw.pid, idle);
  report.note(
    `fair-use: ${FLOOD} concurrent ${CHARS}-char generations from one client answered ${JSON.stringify(counts)} in ${(floodMs / 1000).toFixed(1)} s; ` +
      `the other client's ${total} hot audio reads meanwhile: worst p99 of ${reads.length} 5-s runs ${p99} ms; RSS peak ${during.peak.toFixed(1)} MB, ${(afterFlood.afterMs / 1000).toFixed(0)} s after ${afterFlood.rss.toFixed(1)} MB (idle ${idle.toFixed(1)} MB)`,
  );
  report.budget(`hot audio GET p99 of a second client during a flood of ${FLOOD} × ${CHARS} chars`, p99, '<=', 50, 'ms');
  report.budget('RSS a minute after the flood, over idle', (afterFlood.rss - idle) / idle, '<=', 0.1, 'percent');
}
