/**
 * Baseline for the GraphQL case: the gateway's own schema, resolvers and domain services, run by
 * plain graphql-js (parse, validate, execute on every request) behind bare `node:http` — no
 * express, no Apollo, no middleware. It opens the same embedded database (DATA_DIR) after the
 * gateway has stopped. Prints `LISTENING <url>` when ready.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { execute, parse, validate } from 'graphql';
import { createDomainContext } from '../../domain/context';
import { openDatabase } from '../../domain/database/orm';
import { InProcessEventBus } from '../../domain/events/bus';
import { createServices } from '../../domain/services';
import { FsBlobStore } from '../../domain/tts/cache/blob-store';
import { createProviders } from '../../domain/tts/providers/registry';
import { parseConfig } from '../../gateway/config';
import { buildGraphqlSchema } from '../../gateway/graphql';
import { restLinks } from '../../rest-adapter/links';

const bearerFrom = (h: string | undefined) => /^Bearer\s+(\S+)\s*$/i.exec(h ?? '')?.[1];

async function main() {
  const config = parseConfig();
  const db = await openDatabase({ dataDir: config.dataDir });
  const rootEm = db.orm.em as any;
  const bus = new InProcessEventBus();
  // The same composition as gateway/server.ts, minus the transports.
  const services = createServices({
    rootEm,
    bus,
    blobs: new FsBlobStore(path.join(config.dataDir, 'audio')),
    providers: createProviders({ mockLatencyMs: config.mockLatencyMs, ...config.providers }),
    links: restLinks(),
    adminApiKey: config.adminApiKey,
    ttsApiKey: config.ttsApiKey,
    prices: config.prices,
    hotCacheBytes: config.hotCacheBytes,
    environment: 'production',
    webhookAllowPrivateNetworks: false,
    instanceId: `${os.hostname()}:${process.pid}:baseline`,
  });
  await services.start();
  const schema = await buildGraphqlSchema(bus);

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const { query, variables, operationName } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const document = parse(query);
        const errors = validate(schema, document);
        const principal = await services.auth.authenticate(bearerFrom(req.headers.authorization));
        const result = errors.length
          ? { errors }
          : await execute({
              schema,
              document,
              variableValues: variables,
              operationName,
              contextValue: { services, domain: createDomainContext(rootEm, { requestId: randomUUID(), principal, ip: req.socket.remoteAddress }) },
            });
        const body = JSON.stringify(result);
        res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
      } catch (err) {
        res.writeHead(500).end(String(err));
      }
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as import('node:net').AddressInfo;
  process.stdout.write(`LISTENING http://127.0.0.1:${port}\n`);
  process.on('SIGTERM', async () => {
    server.close();
    await services.close().catch(() => undefined);
    await db.close().catch(() => undefined);
    process.exit(0);
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
