import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import os from 'node:os';
import type { EmbeddedSupervisor } from '../domain/database/embedded-supervisor';
import type { Database } from '../domain/database/orm';
import type { Services } from '../domain/services';
import type { AudioWorkerPool } from '../domain/tts/audio-workers';
import { configuredSecrets, type GatewayConfig } from './config';
import { createLogger, type Logger } from './logger';
import { createMetrics, type Metrics } from './metrics';
import { openDataLayer } from './start/database';
import { sweepCrashLeftovers } from '../domain/crash-leftovers';
import { createDomainLayer } from './start/domain';
import { createHttpApp, listen, mountFallbacks } from './start/http-app';
import { mountGraphql, mountRest, mountTrpc } from './start/transports';
import { mountChannels } from './start/channels';
import { drainHttpServer, shutdownSequence } from './start/shutdown';

export interface Gateway {
  url: string;
  port: number;
  services: Services;
  db: Database;
  log: Logger;
  metrics: Metrics;
  httpServer: http.Server;
  /** The admin secret generated on first start (null when configured or already generated). */
  bootstrapAdminKey: string | null;
  /** Threads for mock synthesis and audio encoding (none with AUDIO_WORKERS=0). */
  audioWorkers?: AudioWorkerPool;
  stop(): Promise<void>;
}

/** Starts one gateway instance: database, domain services, the three transports and live channels. */
export interface CreateGatewayOptions {
  logger?: Logger;
  /** The embedded database, already starting (gateway/main.ts starts it before loading this module). */
  embeddedDatabase?: Promise<EmbeddedSupervisor>;
  /** The embedded database exited and could not be restarted (gateway/main.ts exits non-zero). Default: the log says so. */
  onDatabaseLost?: (err: Error) => void;
}

export async function createGateway(config: GatewayConfig, opts: CreateGatewayOptions = {}): Promise<Gateway> {
  const log = opts.logger ?? createLogger(config.logLevel, undefined, configuredSecrets(config));
  const metrics = createMetrics();
  const instanceId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  // What a crash left behind (half-written audio, dead embedded databases' socket directories).
  const swept = await sweepCrashLeftovers({ dataDir: config.dataDir }).catch((err) => (log.warn({ err }, 'sweeping crash leftovers failed'), null));
  if (swept && (swept.audioTempFiles || swept.socketDirs)) log.info({ component: 'crash-leftovers', ...swept }, 'removed what a crash left behind');
  const data = await openDataLayer(config, log, opts.embeddedDatabase, (err) => (opts.onDatabaseLost ?? ((e) => log.fatal({ err: e }, 'database lost')))(err));
  const { services, bus, redis, audioWorkers } = createDomainLayer(config, data, { log, metrics, instanceId });
  const bootstrapAdminKey = await data.onceAcrossInstances(() => services.auth.ensureBootstrapAdmin());

  // The order of mounting is the order express tries them: REST first, the 404 and error answers last.
  const web = await createHttpApp(config, { services, rootEm: data.rootEm, redis, log, metrics });
  const { httpServer } = web;
  const rest = mountRest(web, { services, log, metrics });
  const graphql = await mountGraphql(web, { config, services, bus, log, redis });
  mountTrpc(web, { services, log, maxResultBytes: config.graphqlMaxResultBytes });
  mountFallbacks(web.app, log);
  const channels = mountChannels(httpServer, { pipeline: graphql.pipeline, services, contexts: web.contexts, clientIpOf: web.clientIpOf, log, metrics });

  const { url, port } = await listen(httpServer, config);
  // Background work (workers, schedules) starts once the server answers; a thread warmed now is
  // ready before a generation needs its first audio.
  await data.onceAcrossInstances(() => services.start());
  audioWorkers?.warm().catch((err) => log.warn({ err }, 'audio worker warm-up failed (threads start on demand)'));
  log.info(
    { url, database: data.db.embedded ? 'embedded' : 'postgresql', events: config.redisUrl ? 'redis' : 'in-process', console: rest.consoleServed },
    'gateway listening',
  );
  if (!rest.consoleServed) log.warn('web console not built (console/dist missing): run `npm run console:build` to serve it at /');

  const stop = shutdownSequence(log, [
    ['streams', () => rest.closeStreams('The server is shutting down; retry the request')],
    ['live channels', () => channels.live.close()],
    ['graphql-ws', () => channels.graphqlWs.close()],
    ['http drain', () => drainHttpServer(httpServer)], // answers in flight finish
    ['graphql', () => graphql.apollo.stop()],
    ['services', () => services.close()],
    ['audio workers', () => audioWorkers?.close()],
    ['locks', () => data.locks?.close()],
    ['event bus', () => bus.close()],
    ['database', () => (redis?.disconnect(), data.close())],
  ]);

  return { url, port, services, db: data.db, log, metrics, httpServer, bootstrapAdminKey, audioWorkers, stop };
}
