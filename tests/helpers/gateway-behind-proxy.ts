import { createLogger } from '../../gateway/logger';
import { createStandaloneDatabase } from './database';
import { startGateway, type TestGateway } from './gateway';
import { startTcpProxy, type TcpProxy } from './tcp-proxy';

export interface GatewayBehindProxy {
  gw: TestGateway;
  /** The relay between gateway and database: pause, resume or cut it to make the database hang or go away. */
  proxy: TcpProxy;
  /** The gateway's log lines at warn and above. */
  logLines: string[];
  close(): Promise<void>;
}

/**
 * A gateway on a PostgreSQL database of its own (dropped on close), reached through a TCP relay the
 * test controls: what a fault test needs to make the database hang or disappear under a live gateway.
 */
export async function startGatewayBehindProxy(prefix: string, env: Record<string, string> = {}): Promise<GatewayBehindProxy> {
  const db = await createStandaloneDatabase(prefix);
  const target = new URL(db.url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(target);
  viaProxy.host = `127.0.0.1:${proxy.port}`;
  const logLines: string[] = [];
  const gw = await startGateway(
    { ...env, DATABASE_URL: viaProxy.toString() },
    { logger: createLogger('warn', { write: (line: string) => void logLines.push(line) }) },
  );
  return {
    gw,
    proxy,
    logLines,
    async close() {
      proxy.resume();
      await gw.close();
      await proxy.close();
      await db.drop();
    },
  };
}
