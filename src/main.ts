import { resolve } from 'node:path';
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
  const store = await openEventStore(settings, log);
  const service = await startService(settings, store, log);
  log.info({ url: service.deps.baseUrl, settlement: settings.SETTLEMENT, eventStore: settings.EVENTSTORE_URL ? 'eventstoredb' : 'file' }, 'listening');
  // One line for the person at the terminal; stdout stays JSON lines for log collectors.
  process.stderr.write(`${startupLine(service.deps.baseUrl, settings)}\n`);
  const stop = async (signal: string) => {
    log.info({ signal }, 'stopping');
    await service.close();
    await store.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
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
