import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { createFileAtomically, replaceFileAtomically } from './atomic-file.ts';
import { createRotatingKeyring, MissingSecretError, type KeyGenerationSecret, type Keyring } from './signing/keyring.ts';

/**
 * Key rotation by configuration. Generation 0 is the attestation secret (ATTESTATION_SECRET or
 * DATA_DIR/attestation-secret); each later generation is a secret file of its own in DATA_DIR,
 * listed in DATA_DIR/key-generations.json with the time it starts signing. Every generation stays
 * loaded, so results signed before a rotation keep verifying against the key of their time.
 */
export const GENERATIONS_FILE = 'key-generations.json';

const generationsSchema = z.object({
  generations: z.array(
    z.object({
      generation: z.number().int().min(1),
      valid_from: z.number().int().min(1),
      secret_file: z.string().regex(/^[A-Za-z0-9._-]+$/, 'a file name inside the data directory'),
    }),
  ),
});
export type KeyGenerationsFile = z.infer<typeof generationsSchema>;

export function readKeyGenerations(dataDir: string): KeyGenerationsFile {
  let text: string;
  try {
    text = readFileSync(join(dataDir, GENERATIONS_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { generations: [] };
    throw err;
  }
  return generationsSchema.parse(JSON.parse(text));
}

/** The keyring of every generation: generation 0 from `secret`, the others from their files. */
export function loadKeyring(secret: string, dataDir: string): Keyring {
  const later: KeyGenerationSecret[] = readKeyGenerations(dataDir).generations.map((g) => {
    const path = join(dataDir, g.secret_file);
    let text: string;
    try {
      text = readFileSync(path, 'utf8').trim();
    } catch {
      throw new MissingSecretError(`${path} (key generation ${g.generation}) is missing: restore it from a backup; without it the results it signed cannot be verified`);
    }
    if (text.length < 32) throw new MissingSecretError(`${path} (key generation ${g.generation}) holds no secret of at least 32 characters`);
    return { generation: g.generation, validFrom: g.valid_from, secret: text };
  });
  return createRotatingKeyring([{ generation: 0, validFrom: 0, secret }, ...later]);
}

/**
 * Adds a generation: a new secret file (mode 0600) and its entry, starting at `validFrom`. The
 * running service takes it at its next start; until `validFrom`, the previous generation signs.
 */
export function rotateKeys(dataDir: string, validFrom: number, now: number): { generation: number; secretFile: string } {
  const file = readKeyGenerations(dataDir);
  const last = file.generations.at(-1);
  if (validFrom < now) throw new Error(`a rotation starts now or later (${validFrom} is before ${now}): results already signed keep their keys`);
  if (last && validFrom <= last.valid_from) throw new Error(`generation ${last.generation} starts at ${last.valid_from}; a new one must start after it`);
  const generation = (last?.generation ?? 0) + 1;
  const secretFile = `attestation-secret.g${generation}`;
  if (!createFileAtomically(join(dataDir, secretFile), `${randomBytes(32).toString('hex')}\n`, 0o600)) throw new Error(`${secretFile} already exists`);
  const next: KeyGenerationsFile = { generations: [...file.generations, { generation, valid_from: validFrom, secret_file: secretFile }] };
  replaceFileAtomically(join(dataDir, GENERATIONS_FILE), `${JSON.stringify(next, null, 2)}\n`, 0o644);
  return { generation, secretFile };
}
