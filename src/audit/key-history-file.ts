import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { isKeyFamily, type KeyFamily } from '../signing/key-families.ts';
import { keyIdOf, type HistoricKey } from '../signing/keyring.ts';
import type { AuditKeys } from './result-check.ts';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'must be 32 bytes in lowercase hex');
const historySchema = z.object({
  keys: z.array(
    z.object({
      family: z.string().refine(isKeyFamily, 'is no key family of this service'),
      generation: z.number().int().min(0),
      public_key: hex64,
      key_id: z.string(),
      valid_from: z.number().int().min(0),
      valid_until: z.number().int().nullable(),
    }),
  ),
});

/**
 * The public keys of an audit from a saved key history (GET /v1/keys/history): what an auditor
 * who holds no secret has. Each key id is recomputed from its public key, so a history whose ids
 * do not match its keys is refused rather than trusted.
 */
export function auditKeysFromHistoryFile(path: string): AuditKeys {
  let parsed: z.infer<typeof historySchema>;
  try {
    parsed = historySchema.parse(JSON.parse(readFileSync(path, 'utf8')));
  } catch (err) {
    throw new Error(`${path} is not a key history (GET /v1/keys/history): ${err instanceof z.ZodError ? err.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') : (err as Error).message}`);
  }
  const keys: HistoricKey[] = parsed.keys.map((k) => {
    const keyId = keyIdOf(Buffer.from(k.public_key, 'hex'));
    if (keyId !== k.key_id) throw new Error(`${path}: key_id ${k.key_id} is not the id of its public key (${keyId})`);
    return { family: k.family as KeyFamily, generation: k.generation, publicKeyHex: k.public_key, keyId, validFrom: k.valid_from, validUntil: k.valid_until };
  });
  const byId = new Map(keys.map((k) => [k.keyId, k]));
  return { keyById: (id) => byId.get(id), history: () => keys };
}
