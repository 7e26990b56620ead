import { describe, expect, it } from 'vitest';
import { staleControlProofRefusal } from './stale-proof-refusal.ts';
import { controlProofMessage } from './control-message.ts';
import { edSigner } from '../../../../test/support/keys.ts';

const NOW = 1_790_000_000;

describe('stale control proof, refused before the quote', () => {
  const key = edSigner(9);
  const proof = (identifier: string, signedAt: number) => {
    const message = controlProofMessage(identifier, 'ops', signedAt);
    return { identifier, control_method: 'ed25519-signature', claimer: 'ops', control_evidence: { message, signature: key.sign(message) } };
  };

  it('refuses a proof in the claim\'s text signed an hour ago or ahead, naming the field', () => {
    for (const signedAt of [NOW - 3_600, NOW + 3_600]) {
      expect(staleControlProofRefusal(proof(key.didKey, signedAt), NOW)).toMatchObject({ status: 422, error: 'control_proof_stale', outcome: 'INVALID-INPUT', issues: [{ path: 'control_evidence.message' }] });
    }
    expect(staleControlProofRefusal(proof(key.didKey, NOW - 300), NOW)).toBeUndefined();
  });

  it('leaves to the engine what is not a stale proof it would check: another text, or an identifier it cannot check offline', () => {
    const login = { ...proof(key.didKey, NOW), control_evidence: { message: 'Sign in. nonce 1', signature: key.sign('Sign in. nonce 1') } };
    expect(staleControlProofRefusal(login, NOW)).toBeUndefined();
    expect(staleControlProofRefusal(proof('did:web:example.org', NOW - 3_600), NOW)).toBeUndefined();
  });
});
