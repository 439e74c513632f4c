import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Services } from '../domain/services';
import type { Logger } from './logger';
import type { Metrics } from './metrics';

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** Mounts the live channels (the dashboard WebSocket) on the shared upgrade router. */
export function mountLiveChannels(_deps: { upgrades: Map<string, UpgradeHandler>; services: Services; log: Logger; metrics: Metrics }) {
  return {
    async close() {},
  };
}
