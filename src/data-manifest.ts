import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileAtomically } from './atomic-file.ts';
import { z } from 'zod';
import type { Keyring } from './signing/keyring.ts';

/**
 * A small manifest in the data directory: which service's log it is, and which public keys its
 * results are signed with. It turns silent disasters into refusals at start: a deleted secret
 * (a new one would fail every old signature), a secret swapped for another, or a data directory
 * of another service mounted by mistake.
 */
export const MANIFEST_FILE_NAME = 'manifest.json';
const SERVICE = 'pay-per-call-attestation-service';

const manifestSchema = z.object({
  format: z.literal(1),
  service: z.literal(SERVICE),
  /** Random at creation: names this log wherever it is copied or mounted. */
  logId: z.string().uuid(),
  /** keyId of every key family when the directory was created. */
  keyIds: z.record(z.string(), z.string().regex(/^[0-9a-f]{16}$/)),
});
export type DataManifest = z.infer<typeof manifestSchema>;

export class DataDirectoryMismatchError extends Error {
  override name = 'DataDirectoryMismatchError';
}

export function readDataManifest(dataDir: string): DataManifest | undefined {
  const path = join(dataDir, MANIFEST_FILE_NAME);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new DataDirectoryMismatchError(`${path} is not valid JSON: this is not this service's data directory, or the file is damaged`);
  }
  const manifest = manifestSchema.safeParse(parsed);
  if (!manifest.success) throw new DataDirectoryMismatchError(`${path} is not a manifest of this service (${manifest.error.issues[0]?.message ?? 'invalid'}): wrong data directory?`);
  return manifest.data;
}

/**
 * Checks the keys the secret derives against the manifest, or writes the manifest on first use
 * (atomically: atomic-file.ts).
 */
export function checkDataManifest(dataDir: string, keyring: Keyring): DataManifest {
  // The first generation's keys: a rotation adds keys, it never changes these.
  const keyIds = Object.fromEntries(keyring.history().filter((k) => k.validFrom === 0).map((k) => [k.family, k.keyId]));
  const existing = readDataManifest(dataDir);
  if (existing) {
    const changed = Object.entries(existing.keyIds).filter(([family, keyId]) => keyIds[family] !== undefined && keyIds[family] !== keyId);
    if (changed.length > 0)
      throw new DataDirectoryMismatchError(
        `the attestation secret does not derive the keys this data directory's results are signed with (${changed.map(([family, keyId]) => `${family}: expected key ${keyId}, got ${keyIds[family]}`).slice(0, 3).join('; ')}${changed.length > 3 ? '; ...' : ''}): restore the original secret (DATA_DIR/attestation-secret or ATTESTATION_SECRET)`,
      );
    return existing;
  }
  const created: DataManifest = { format: 1, service: SERVICE, logId: randomUUID(), keyIds };
  createFileAtomically(join(dataDir, MANIFEST_FILE_NAME), `${JSON.stringify(created, null, 2)}\n`, 0o644);
  return readDataManifest(dataDir) ?? created;
}
