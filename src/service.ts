import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import { catalog, readModels } from './catalog/index.ts';
import { MAX_HEADER_BYTES } from './kernel/limits.ts';
import type { Route } from './kernel/operation.ts';
import { keepFoldedStates } from './kernel/kept-folds.ts';
import { answerClientError } from './http/client-error.ts';
import type { HttpDeps } from './http/routes.ts';
import { publicBaseUrl, type Settings } from './config.ts';
import type { EventStore } from './events/port.ts';
import { createApp } from './http/app.ts';
import { uploadsRemoved } from './http/multipart.ts';
import { keepRemovingStaleUploads, staleUploadAgeMs } from './http/stale-uploads.ts';
import { createLogger } from './logger.ts';
import { createPaymentGateway } from './payments/create-gateway.ts';
import type { PaymentGateway } from './payments/gateway.ts';
import { createStatsReader, publicStatsProjection } from './projections/public-stats.ts';
import { createFileCheckpointStore, startProjection } from './projections/runner.ts';
import { projectionCheckpointDirectory } from './events/open-store.ts';
import { checkDataManifest, readDataManifest } from './data-manifest.ts';
import { resolveAttestationSecret } from './signing/keyring.ts';
import { loadKeyring } from './key-generations.ts';
import { startResultLog } from './transparency/result-log.ts';

export interface RunningService {
  url: string;
  deps: HttpDeps;
  server: Server;
  close(): Promise<void>;
}

/**
 * Composition: settings -> event store -> keyring -> settler -> app -> listen. The caller
 * supplies the store so that tests can use the in-memory one and main uses openEventStore.
 */
export interface ServiceOptions {
  /** A gateway built by the caller (tests wrap the settler); default: the one SETTLEMENT names. */
  payments?: PaymentGateway;
  /** The routes served; default: the catalogue (tests add a route it does not hold). */
  routes?: readonly Route[];
}

export async function startService(settings: Settings, store: EventStore, log: Logger = createLogger(settings), options: ServiceOptions = {}): Promise<RunningService> {
  // A directory that already holds signed history must keep its secret: never generate another.
  const holdsHistory = readDataManifest(settings.DATA_DIR) !== undefined || (await logHoldsEvents(store));
  const secret = resolveAttestationSecret(settings.ATTESTATION_SECRET, settings.DATA_DIR, { mayGenerate: !holdsHistory });
  if (secret.origin === 'generated') log.warn({ path: secret.path }, 'ATTESTATION_SECRET is not set: generated one into the data directory (mode 0600); keep it to keep signatures verifiable');
  else if (secret.origin === 'data-dir') log.info({ path: secret.path }, 'attestation secret loaded from the data directory');
  const keyring = loadKeyring(secret.secret, settings.DATA_DIR);
  checkDataManifest(settings.DATA_DIR, keyring);

  keepFoldedStates(store, settings.STATE_CACHE_MB * 2 ** 20);
  const stopRemovingStaleUploads = keepRemovingStaleUploads(staleUploadAgeMs(settings.REQUEST_TIMEOUT_MS), log);
  const checkpoints = createFileCheckpointStore(projectionCheckpointDirectory(settings.DATA_DIR));
  const stats = await startProjection(store, publicStatsProjection, { checkpoints, log });
  // The result log's leaves used to be cached in this file; its store (below) replaces it.
  rmSync(join(settings.DATA_DIR, 'result-log', 'leaves'), { force: true });
  const resultLog = settings.RESULT_LOG === 'on' ? await startResultLog(store, keyring, { checkpointIntervalMs: settings.LOG_CHECKPOINT_INTERVAL_MS, log, leafStore: join(settings.DATA_DIR, 'result-log', 'store'), witnesses: settings.LOG_WITNESSES }) : undefined;
  const startedReadModels = await startReadModels(store, settings.DATA_DIR, log);
  const deps: HttpDeps = {
    store,
    keyring,
    settings,
    baseUrl: publicBaseUrl(settings),
    stats: createStatsReader(() => stats.state(), settings.STATS_CACHE_SECONDS),
    payments: options.payments ?? (await createPaymentGateway(settings)),
    ...(resultLog ? { resultLog } : {}),
  };
  const app = createApp(options.routes ?? catalog, deps, log);
  // GET verify routes carry whole records in the query string: allow 64 KiB of headers
  // instead of Node's 16 KiB default.
  const server = createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: settings.HEADERS_TIMEOUT_MS,
      requestTimeout: settings.REQUEST_TIMEOUT_MS,
      keepAliveTimeout: settings.KEEP_ALIVE_TIMEOUT_MS,
      // Node checks the two timeouts above this often (30 s by default): no later than they expire.
      connectionsCheckingInterval: Math.min(1_000, settings.HEADERS_TIMEOUT_MS, settings.REQUEST_TIMEOUT_MS),
    },
    app.callback(),
  );
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.PORT, settings.HOST, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  // With PORT=0 the port is known only now; quotes and documents must name the real one.
  deps.baseUrl = publicBaseUrl(settings, port);
  return {
    url: `http://127.0.0.1:${port}`,
    deps,
    server,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await uploadsRemoved();
      stopRemovingStaleUploads();
      await stats.stop();
      await resultLog?.stop();
      for (const model of startedReadModels) await model.stop();
    },
  };
}

/** The families' read models, each with its directory beside the projections' checkpoints. */
async function startReadModels(store: EventStore, dataDir: string, log: Logger): Promise<{ stop(): Promise<void> }[]> {
  const started = [];
  for (const model of readModels) started.push(await model.start(store, { dir: join(projectionCheckpointDirectory(dataDir), model.name), log }));
  return started;
}

async function logHoldsEvents(store: EventStore): Promise<boolean> {
  for await (const _event of store.readAll({ maxCount: 1 })) return true;
  return false;
}
