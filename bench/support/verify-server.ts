import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings } from '../../src/config.ts';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import { createLogger } from '../../src/logger.ts';
import { startService } from '../../src/service.ts';

// The service as `npm start` runs it, but on an ephemeral port and silent: for load benchmarks.
const settings = loadSettings({
  ...process.env,
  PORT: '0',
  HOST: '127.0.0.1',
  DATA_DIR: mkdtempSync(join(tmpdir(), 'bench-verify-')),
  LOG_LEVEL: 'silent',
});
const service = await startService(settings, createMemoryEventStore(), createLogger(settings));
console.log(`listening ${service.url}`);
process.once('SIGTERM', () => void service.close().then(() => process.exit(0)));
