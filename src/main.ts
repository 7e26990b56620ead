import { resolve } from 'node:path';
import { freeDiskBytes } from './free-disk-space.ts';
import { ConfigError, loadSettings, type Settings } from './config.ts';
import { createLogger } from './logger.ts';
import { startService } from './service.ts';
import { openEventStore } from './events/open-store.ts';

/** Composition root only: config -> event store -> service -> listen. */
async function main(): Promise<void> {
  let settings;
  try {
    settings = loadSettings();
  } catch (err) {
    if (err instanceof ConfigError) {
      for (const problem of err.problems) process.stderr.write(`config: ${problem}\n`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(settings);
  const { store, service } = await openAndStart(settings, log);
  log.info({ url: service.deps.baseUrl, settlement: settings.SETTLEMENT, eventStore: settings.EVENTSTORE_URL ? 'eventstoredb' : 'file' }, 'listening');
  // One line for the person at the terminal; stdout stays JSON lines for log collectors.
  process.stderr.write(`${startupLine(service.deps.baseUrl, settings)}\n`);
  const stop = async (signal: string) => {
    log.info({ signal }, 'stopping');
    try {
      await service.close();
    } finally {
      await store.close();
    }
  };
  const stopAndExit = (signal: string) =>
    void stop(signal).then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`stopping: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
  process.once('SIGINT', () => stopAndExit('SIGINT'));
  process.once('SIGTERM', () => stopAndExit('SIGTERM'));
}

async function openAndStart(settings: Settings, log: ReturnType<typeof createLogger>) {
  try {
    const store = await openEventStore(settings, log);
    return { store, service: await startService(settings, store, log) };
  } catch (err) {
    throw explainedByDisk(err, settings.DATA_DIR);
  }
}

/** Below this much free space a failed start is put down to the disk (LMDB reports a full one as an I/O error). */
const NEARLY_FULL_BYTES = 1024 * 1024;

function explainedByDisk(err: unknown, dataDir: string): unknown {
  const free = freeDiskBytes(dataDir);
  if (free === undefined || free >= NEARLY_FULL_BYTES) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new Error(`${message} (the disk holding ${resolve(dataDir)} has ${free} bytes free: free some space and start again; nothing acknowledged is lost)`, { cause: err });
}

function startupLine(baseUrl: string, settings: Settings): string {
  const settlement = settings.SETTLEMENT === 'local' ? 'local settlement (verified, no money moves)' : `${settings.SETTLEMENT} settlement`;
  const events = settings.EVENTSTORE_URL ? 'events in EventStoreDB' : `data in ${resolve(settings.DATA_DIR)}`;
  return `Listening on ${baseUrl} with ${settlement}, ${events}. Contract: ${baseUrl}/openapi.json; docs: README.md and docs/.`;
}

main().catch((err: unknown) => {
  process.stderr.write(`fatal: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
