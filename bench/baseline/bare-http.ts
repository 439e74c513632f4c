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

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
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
