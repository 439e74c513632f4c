import WebSocket from 'ws';

/** How the server answers a WebSocket upgrade to `url`: 101 when it opens, else the refusal's HTTP status. */
export function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      socket.terminate();
    });
    socket.on('open', () => {
      socket.close();
      resolve(101);
    });
    // terminate() after a refused upgrade reports one
    socket.on('error', (e) => (String(e.message).includes('Unexpected server response') ? undefined : reject(e)));
  });
}
