import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Services } from '../../domain/services';
import type { RequestContexts } from '../../transport/request-context';
import { graphqlWsServer, type Pipeline } from '../graphql';
import { mountLiveChannels, type UpgradeHandler } from '../live';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';

/**
 * The WebSocket channels, routed by path on upgrade: graphql-ws on /graphql (the GraphQL pipeline)
 * and the dashboard channel; any other path is a 404. (SSE streams are REST routes.)
 */
export function mountChannels(
  httpServer: Server,
  deps: { pipeline: Pipeline; services: Services; contexts: RequestContexts; clientIpOf(req: IncomingMessage): string; log: Logger; metrics: Metrics },
) {
  const { log } = deps;
  const upgrades = new Map<string, UpgradeHandler>();
  const graphqlWs = graphqlWsServer(deps);
  upgrades.set('/graphql', graphqlWs.upgrade);
  const live = mountLiveChannels({ upgrades, services: deps.services, log, metrics: deps.metrics });
  httpServer.on('upgrade', (req, socket: Duplex, head) => {
    const pathname = (req.url ?? '/').split('?')[0];
    const handler = upgrades.get(pathname);
    log.debug({ path: pathname, known: !!handler }, 'websocket upgrade');
    if (!handler) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    handler(req, socket, head);
  });
  return { graphqlWs, live };
}
