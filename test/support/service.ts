import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings, type Settings } from '../../src/config.ts';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import type { EventStore } from '../../src/events/port.ts';
import { createLogger, startService, type RunningService } from '../../src/service.ts';

export const TEST_SECRET = 'test-attestation-secret-0123456789abcdef';

export interface TestService extends RunningService {
  dataDir: string;
  stop(): Promise<void>;
}

/** The real service on an ephemeral loopback port, with a temp data dir and its own store. */
export async function startTestService(
  env: Record<string, string> = {},
  makeStore: (settings: Settings) => Promise<EventStore> | EventStore = () => createMemoryEventStore(),
): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'attest-test-'));
  const settings = loadSettings({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ATTESTATION_SECRET: TEST_SECRET, ...env });
  const store = await makeStore(settings);
  const service = await startService(settings, store, createLogger(settings));
  return {
    ...service,
    dataDir,
    async stop() {
      await service.close();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
