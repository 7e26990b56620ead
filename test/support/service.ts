import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { loadSettings, type Settings } from '../../src/config.ts';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import type { EventStore } from '../../src/events/port.ts';
import { createLogger } from '../../src/logger.ts';
import { startService, type RunningService, type ServiceOptions } from '../../src/service.ts';

export const TEST_SECRET = 'test-attestation-secret-0123456789abcdef';

export interface TestService extends RunningService {
  dataDir: string;
  stop(): Promise<void>;
}

/** The real service on an ephemeral loopback port, with a temp data dir and its own store. */
export async function startTestService(
  env: Record<string, string> = {},
  makeStore: (settings: Settings) => Promise<EventStore> | EventStore = () => createMemoryEventStore(),
  options: ServiceOptions = {},
): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'attest-test-'));
  const settings = loadSettings({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ATTESTATION_SECRET: TEST_SECRET, ...env });
  const store = await makeStore(settings);
  const service = await startService(settings, store, createLogger(settings), options);
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

/**
 * The real service for the lifetime of the calling test file or describe block: started in
 * beforeAll, stopped in afterAll. The handle can be taken at module level and used in tests and
 * later hooks; reaching into it before beforeAll has run is an error.
 */
export function useTestService(env: Record<string, string> = {}): TestService {
  let running: TestService | undefined;
  beforeAll(async () => {
    running = await startTestService(env);
  });
  afterAll(async () => {
    await running?.stop();
  });
  return new Proxy({} as TestService, {
    get(_, key) {
      if (!running) throw new Error('the test service is started in beforeAll: use it from a test or a later hook');
      return Reflect.get(running, key);
    },
  });
}

/** POSTs `body` as JSON to `path` of the service, with `fetcher`: plain fetch, or a paying one. */
export function postTo(service: TestService, path: string, body: unknown, fetcher: typeof fetch = fetch): Promise<Response> {
  return fetcher(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}
