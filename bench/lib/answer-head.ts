/** Headers node:http writes on its own for every answer (or that describe this one body's framing). */
const NODE_WRITES = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/**
 * The head a server answered, as the bare baseline replays it: every header but those node:http
 * writes itself. Per-request values (the request id, the limiter's remaining count) are replayed as
 * they were, at the same length, so the bare server sends the same bytes without the work behind them.
 */
export function answerHead(res: Response): [string, string][] {
  const head: [string, string][] = [];
  res.headers.forEach((value, name) => {
    if (!NODE_WRITES.has(name)) head.push([name, value]);
  });
  return head;
}
