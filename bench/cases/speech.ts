/**
 * Issue #31: a cache hit on the OpenAI-compatible `POST /v1/audio/speech` against what a client of
 * the gateway's own API does for the same audio: `POST /api/v1/generate` (a cache hit) followed by
 * the audio GET, on the same gateway, in alternating rounds. Budget: CPU per speech request ≤ 1.1x
 * the CPU of the generate + GET pair. Absent endpoint (404): a miss saying so, not a crash.
 */
import { load, type LoadResult } from '../lib/load';
import { median, ROUNDS, WARMUP_SECONDS } from '../lib/pair';
import type { Child } from '../lib/proc';
import type { Report } from '../lib/report';

const NAME = '#31 cache-hit POST /v1/audio/speech vs POST /api/v1/generate + audio GET, CPU per answer';

export async function runSpeechCase(report: Report, gw: Child, key: string, text: string) {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const gen = await fetch(`${gw.url}/api/v1/generate`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ text, options: { provider: 'mock', format: 'mp3' } }),
  });
  const g = (await gen.json()) as { audioUrl?: string; metadata?: { voice?: string } };
  const voice = g.metadata?.voice ?? 'alloy';
  const speechBody = JSON.stringify({ model: 'mock', input: text, voice, response_format: 'mp3' });
  const first = await fetch(`${gw.url}/v1/audio/speech`, { method: 'POST', headers, body: speechBody });
  await first.arrayBuffer();
  if (first.status === 404) return report.unavailable(NAME, '≤ 1.1x', 'not available (endpoint 404)');
  if (!first.ok) return report.unavailable(NAME, '≤ 1.1x', `endpoint answered ${first.status}`);
  const speech = { url: `${gw.url}/v1/audio/speech`, method: 'POST' as const, headers, body: speechBody, serverPid: gw.pid };
  const pair = {
    url: gw.url,
    serverPid: gw.pid,
    requests: [
      { method: 'POST' as const, path: '/api/v1/generate', headers, body: JSON.stringify({ text, options: { provider: 'mock', format: 'mp3' } }) },
      { method: 'GET' as const, path: new URL(g.audioUrl!, gw.url).pathname, headers: { authorization: headers.authorization } },
    ],
  };
  if (WARMUP_SECONDS > 0) {
    await load({ ...speech, durationSeconds: WARMUP_SECONDS });
    await load({ ...pair, durationSeconds: WARMUP_SECONDS });
  }
  const s: LoadResult[] = [];
  const p: LoadResult[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    s.push(await load(speech));
    p.push(await load(pair));
  }
  // The pair's two requests make one answer: its CPU per answer is twice its CPU per request.
  const ratios = s.map((r, i) => r.cpuMsPerRequest / (2 * p[i].cpuMsPerRequest));
  const ratio = median(ratios);
  const bad = [...s, ...p].reduce((n, r) => n + r.errors + r.non2xx, 0);
  report.check(
    NAME,
    '≤ 1.1x',
    `${ratio.toFixed(2)}x (speech ${median(s.map((r) => r.cpuMsPerRequest)).toFixed(3)} ms vs generate + GET ${median(p.map((r) => 2 * r.cpuMsPerRequest)).toFixed(3)} ms; speech ${median(s.map((r) => r.rps)).toFixed(0)} answers/s)`,
    ratio <= 1.1 && bad === 0,
    bad ? `${bad} errors or non-2xx` : `${ratio.toFixed(2)}x`,
  );
}
