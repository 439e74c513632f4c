/**
 * Baseline: the least a Node server can do to answer — `node:http`, no framework. It sends the
 * bytes of BASELINE_FILE with BASELINE_CONTENT_TYPE to every request, after reading the request
 * body (as a real handler must). Prints `LISTENING <url>` when ready.
 */
import fs from 'node:fs';
import http from 'node:http';

const body = fs.readFileSync(process.env.BASELINE_FILE!);
const contentType = process.env.BASELINE_CONTENT_TYPE ?? 'application/octet-stream';

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': body.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as import('node:net').AddressInfo;
  process.stdout.write(`LISTENING http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
