import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalBytes, type JsonObject } from '../../../signing/rfc8785.ts';
import { sha256Hex } from '../../../signing/hash.ts';
import { postTo, useTestService } from '../../../../test/support/service.ts';
import { runAgainst } from '../../../../test/support/http.ts';

const service = useTestService();
const URL = 'https://api.example.com/v1/data';

describe('bureau reputation over HTTP', () => {
  it('observations signed with a throwaway key are counted, not scored: they cannot make an endpoint GOOD', async () => {
    // Found by fuzzing: three such records, each sent with its own publicKey, were rated GOOD (passRate 1).
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const publicKeyHex = publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex');
    const observations = [1, 2, 3].map((at) => {
      const record = { kind: 'bureau.audit', endpoint: { url: URL, method: 'GET' }, outcome: 'CONFORMANT', defects: [], auditedAt: at };
      const bytes = canonicalBytes(record);
      return { evidenceCore: record, sha256: sha256Hex(bytes), ed25519Sig: sign(null, bytes, privateKey).toString('hex'), publicKey: publicKeyHex };
    });
    const result = await runAgainst(service, 'bureau.reputation', { endpoint: { url: URL }, observations });
    const record = result.record as JsonObject;
    expect(record).toMatchObject({ outcome: 'INSUFFICIENT-DATA', evidence_source: 'caller-supplied', observations: { supplied: 3, accepted: 0, foreign: 3 } });
    expect(record.passRate).toBeUndefined();
    expect((record.observations as { verified: JsonObject[] }).verified).toEqual(
      [0, 1, 2].map((index) => ({ index, sha256: observations[index]!.sha256, signedBy: 'other-key', publicKey: publicKeyHex, scored: false })),
    );
    const res = await postTo(service, '/v1/bureau/verify', { evidenceCore: record, sha256: result.seal.sha256, signature: result.seal.ed25519Sig });
    expect(await res.json()).toMatchObject({ valid: true });
  });
});
