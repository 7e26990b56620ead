import { mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSettings, type Settings } from '../../src/config.ts';
import { DataDirectoryMismatchError, MANIFEST_FILE_NAME } from '../../src/data-manifest.ts';
import { openEventStore } from '../../src/events/open-store.ts';
import { createLogger } from '../../src/logger.ts';
import { MissingSecretError, SECRET_FILE_NAME } from '../../src/signing/keyring.ts';
import { startService } from '../../src/service.ts';

let dataDir: string;
let settings: Settings;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'attest-missing-'));
  settings = loadSettings({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

/** Starts the service on the file log in the data directory, runs `use`, and stops it. */
async function withService<T>(use: (url: string) => Promise<T>): Promise<T> {
  const store = await openEventStore(settings, createLogger(settings));
  try {
    const service = await startService(settings, store, createLogger(settings));
    try {
      return await use(service.url);
    } finally {
      await service.close();
    }
  } finally {
    await store.close();
  }
}

const publicKey = (url: string) => fetch(`${url}/v1/veritrack/public-key`).then((r) => r.json() as Promise<{ keyId: string }>);

describe('files an operator can lose', () => {
  it('a deleted secret stops the start with a clear message, instead of a new secret that fails every old signature', async () => {
    const original = await withService(publicKey);
    const secret = readFileSync(join(dataDir, SECRET_FILE_NAME), 'utf8');
    unlinkSync(join(dataDir, SECRET_FILE_NAME));
    await expect(withService(publicKey)).rejects.toThrow(MissingSecretError);
    await expect(withService(publicKey)).rejects.toThrow(/restore the file from a backup/);
    writeFileSync(join(dataDir, SECRET_FILE_NAME), secret);
    expect(await withService(publicKey)).toEqual(original);
  });

  it('another secret in its place is refused, naming the keys it should derive', async () => {
    await withService(publicKey);
    writeFileSync(join(dataDir, SECRET_FILE_NAME), `${'ab'.repeat(32)}\n`);
    await expect(withService(publicKey)).rejects.toThrow(DataDirectoryMismatchError);
    await expect(withService(publicKey)).rejects.toThrow(/restore the original secret/);
  });

  it('a secret file cut short (0 bytes) is refused with what to do, never signed with', async () => {
    await withService(publicKey);
    writeFileSync(join(dataDir, SECRET_FILE_NAME), '');
    await expect(withService(publicKey)).rejects.toThrow(/holds 0 characters/);
  });

  it('the data directory of something else is refused', async () => {
    writeFileSync(join(dataDir, MANIFEST_FILE_NAME), JSON.stringify({ format: 1, service: 'another-service' }));
    await expect(withService(publicKey)).rejects.toThrow(/not a manifest of this service/);
  });

  it('the secret and the manifest are written whole: no temporary file is left beside them', async () => {
    await withService(publicKey);
    const manifest = JSON.parse(readFileSync(join(dataDir, MANIFEST_FILE_NAME), 'utf8')) as { keyIds: Record<string, string> };
    expect(manifest.keyIds['veritrack']).toBe((await withService(publicKey)).keyId);
    expect(readFileSync(join(dataDir, SECRET_FILE_NAME), 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
    expect(readdirSync(dataDir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});
