import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Connections currently relayed. */
  readonly open: number;
  /** Cuts every relayed connection and refuses new ones (as a stopped server would) until resume(). */
  stop(): void;
  resume(): void;
  close(): Promise<void>;
}

/** A loopback TCP relay to `target`, so a test can take a server away and bring it back. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  let down = false;
  const server = net.createServer((client) => {
    if (down) return client.destroy();
    const upstream = net.connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: TcpProxy = {
    port: (server.address() as net.AddressInfo).port,
    get open() {
      return pairs.size;
    },
    stop() {
      down = true;
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    resume() {
      down = false;
    },
    close() {
      proxy.stop();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
