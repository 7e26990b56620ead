import { ConfigError, loadSettings } from './config.ts';
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
  const stop = async (signal: string) => {
    log.info({ signal }, 'stopping');
    await service.close();
    await store.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err: unknown) => {
  process.stderr.write(`fatal: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
