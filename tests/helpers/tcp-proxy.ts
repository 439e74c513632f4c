import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Connections currently relayed. */
  readonly open: number;
  /** Cuts every relayed connection and refuses new ones (as a stopped server would) until resume(). */
  stop(): void;
  /**
   * Holds everything without a word (as a paused or hung server would): open connections stay open
   * but nothing is relayed, new connections are accepted and left waiting, until resume().
   */
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream?: net.Socket;
}

/** A loopback TCP relay to `target`, so a test can take a server away, freeze it and bring it back. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let down = false;
  let paused = false;
  const relay = (pair: Pair) => {
    const { client } = pair;
    const upstream = (pair.upstream ??= net.connect(target.port, target.host));
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  };
  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    if (down) return client.destroy();
    const pair: Pair = { client };
    pairs.add(pair);
    client
      .on('error', () => undefined)
      .on('close', () => {
        pairs.delete(pair);
        pair.upstream?.destroy();
      });
    if (!paused) relay(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: TcpProxy = {
    port: (server.address() as net.AddressInfo).port,
    get open() {
      return pairs.size;
    },
    stop() {
      down = true;
      paused = false;
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream?.destroy();
      }
      pairs.clear();
    },
    pause() {
      paused = true;
      for (const { client, upstream } of pairs) {
        if (!upstream) continue;
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    resume() {
      down = false;
      if (!paused) return;
      paused = false;
      for (const pair of pairs) {
        if (!pair.upstream) {
          relay(pair);
          continue;
        }
        pair.client.pipe(pair.upstream);
        pair.upstream.pipe(pair.client);
        pair.client.resume();
        pair.upstream.resume();
      }
    },
    close() {
      proxy.stop();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
