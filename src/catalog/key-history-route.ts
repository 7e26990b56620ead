import { z } from 'zod';
import { freeRoute, type FreeRoute } from '../kernel/operation.ts';

const keySchema = z.object({
  family: z.string(),
  generation: z.number().int(),
  algorithm: z.literal('Ed25519'),
  public_key: z.string(),
  key_id: z.string(),
  valid_from: z.number().int(),
  valid_until: z.number().int().nullable(),
});

/**
 * Keys over time: every key family's public keys of every generation with their validity
 * windows, and for each rotation the first checkpoint of the result log signed with the new log
 * key, so a verifier can tell which key was the right key when a result was signed.
 */
export const keyHistoryRoute: FreeRoute = freeRoute({
  id: 'keys.history',
  method: 'GET',
  path: '/v1/keys/history',
  family: 'service',
  summary: 'Every public key of every key family, with the window in which it signed, and the checkpoint of each rotation.',
  description:
    'A result verifies only against the key of its family whose window [valid_from, valid_until) holds its signing time. Keys rotate by configuration (docs/verifying.md); the previous keys stay listed so that old results keep verifying.',
  output: z.object({ keys: z.array(keySchema), rotations: z.array(z.object({ generation: z.number().int(), valid_from: z.number().int(), log_key_id: z.string(), first_checkpoint: z.looseObject({}).nullable() })) }),
  handle: async (_input, deps) => {
    const history = deps.keyring.history();
    const keys = history.map((k) => ({ family: k.family, generation: k.generation, algorithm: 'Ed25519' as const, public_key: k.publicKeyHex, key_id: k.keyId, valid_from: k.validFrom, valid_until: k.validUntil }));
    const rotations = [];
    for (const logKey of history.filter((k) => k.family === 'log' && k.generation > 0)) {
      const first = await deps.resultLog?.firstCheckpointSignedBy(logKey.keyId);
      rotations.push({ generation: logKey.generation, valid_from: logKey.validFrom, log_key_id: logKey.keyId, first_checkpoint: first ? { tree_size: first.tree_size, root_hash: first.root_hash, issued_at: first.issued_at, note: first.note } : null });
    }
    return { body: { keys, rotations }, headers: { 'Cache-Control': 'no-cache' } };
  },
});
