/**
 * Baseline: the least a Node server can do to answer — `node:http`, no framework. It sends the
 * bytes of BASELINE_FILE to every request, after reading the request body (as a real handler must),
 * with the response headers of BASELINE_HEADERS (a JSON list of [name, value]: the head the gateway
 * answered, so both sides put the same bytes on the wire and the load generator parses the same
 * answer) or else just BASELINE_CONTENT_TYPE. Node adds Date, Connection and Keep-Alive on both
 * sides alike. Prints `LISTENING <url>` when ready.
 */
import fs from 'node:fs';
import http from 'node:http';

const body = fs.readFileSync(process.env.BASELINE_FILE!);
const given = process.env.BASELINE_HEADERS ? (JSON.parse(process.env.BASELINE_HEADERS) as [string, string][]) : undefined;
const head: string[] = [];
for (const [name, value] of given ?? [['Content-Type', process.env.BASELINE_CONTENT_TYPE ?? 'application/octet-stream']]) head.push(name, value);
head.push('Content-Length', String(body.length));

// BASELINE_TURN_WRITES=1: the answers of one loop turn written together at its end, as the gateway's
// seam writes them (gateway/front/turn-writes.ts), for a note beside the budget, never the budget.
const turnWrites = process.env.BASELINE_TURN_WRITES === '1';
let pending: http.ServerResponse[] = [];
const flush = () => {
  const batch = pending;
  pending = [];
  for (const res of batch) {
    res.writeHead(200, head);
    res.end(body);
  }
};

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (turnWrites) {
      if (pending.length === 0) setImmediate(flush);
      pending.push(res);
      return;
    }
    res.writeHead(200, head);
    res.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as import('node:net').AddressInfo;
  process.stdout.write(`LISTENING http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
