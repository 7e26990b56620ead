import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assessControl, classifyIdentifier, proveControl } from './engine.ts';
import { canonicalText } from '../../../signing/rfc8785.ts';
import { edSigner, evmSigner } from '../../../../test/support/keys.ts';

const message = 'I control this identifier. nonce 42';

describe('identity control-proof engine', () => {
  it('CONTROL-VERIFIED for an EVM address whose EIP-191 signature recovers to it (any letter case)', async () => {
    const w = evmSigner(0x31);
    const evidence = { message, signature: await w.sign(message) };
    expect(assessControl({ identifier: w.address, control_method: 'eip191-signature', control_evidence: evidence }).verdict).toBe('CONTROL-VERIFIED');
    expect(assessControl({ identifier: w.lower, control_method: 'eip191-signature', control_evidence: evidence }).verdict).toBe('CONTROL-VERIFIED');
    expect(assessControl({ identifier: `did:pkh:eip155:8453:${w.address}`, control_method: 'eip191-signature', control_evidence: evidence }).verdict).toBe('CONTROL-VERIFIED');
  });

  it('CONTROL-FAILED when the signature is by another wallet, over another message, or malformed', async () => {
    const w = evmSigner(0x31);
    const other = evmSigner(0x32);
    const byOther = { message, signature: await other.sign(message) };
    expect(assessControl({ identifier: w.address, control_method: 'm', control_evidence: byOther })).toMatchObject({ verdict: 'CONTROL-FAILED', reason: expect.stringContaining('recovers to') });
    const otherMessage = { message: `${message}!`, signature: await w.sign(message) };
    expect(assessControl({ identifier: w.address, control_method: 'm', control_evidence: otherMessage }).verdict).toBe('CONTROL-FAILED');
    expect(assessControl({ identifier: w.address, control_method: 'm', control_evidence: { message, signature: 'nope' } }).verdict).toBe('CONTROL-FAILED');
  });

  it('CONTROL-VERIFIED for a did:key or a raw Ed25519 key (hex or base64) that signed the message', () => {
    const s = edSigner(5);
    const evidence = { message, signature: s.sign(message) };
    for (const identifier of [s.didKey, s.hex, s.base64]) {
      expect(assessControl({ identifier, control_method: 'ed25519-signature', control_evidence: evidence }).verdict, identifier).toBe('CONTROL-VERIFIED');
    }
    const forged = { message, signature: edSigner(6).sign(message) };
    expect(assessControl({ identifier: s.didKey, control_method: 'ed25519-signature', control_evidence: forged }).verdict).toBe('CONTROL-FAILED');
  });

  it('CONTROL-DOCUMENTED for evidence that cannot be checked offline', async () => {
    const docs = { dns_txt: 'agent-control=abc', url: 'https://example.org/.well-known/did.json' };
    for (const identifier of ['did:web:example.org', 'example.org', 'https://example.org/agent']) {
      expect(assessControl({ identifier, control_method: 'did-web', control_evidence: docs }).verdict, identifier).toBe('CONTROL-DOCUMENTED');
    }
    // A did:web with a signature still needs its DID document (network) to find the key.
    expect(assessControl({ identifier: 'did:web:example.org', control_method: 'm', control_evidence: { message, signature: edSigner(1).sign(message) } }).verdict).toBe('CONTROL-DOCUMENTED');
    // A checkable identifier with evidence that is not a {message, signature} pair.
    const w = evmSigner(0x31);
    expect(assessControl({ identifier: w.address, control_method: 'dns-txt', control_evidence: docs }).verdict).toBe('CONTROL-DOCUMENTED');
    expect(classifyIdentifier('did:key:z6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc').kind).toBe('unverifiable');
  });

  it('NOT-PROVIDED without evidence, or with an empty object', () => {
    expect(assessControl({ identifier: '0x0000000000000000000000000000000000000001', control_method: 'm' }).verdict).toBe('NOT-PROVIDED');
    expect(assessControl({ identifier: 'did:web:example.org', control_method: 'm', control_evidence: {} }).verdict).toBe('NOT-PROVIDED');
  });

  it('builds the record with the evidence verbatim and empty optionals left out', () => {
    const { record } = proveControl({ identifier: 'did:web:example.org', control_method: 'did-web', control_evidence: { note: ' x ' }, claimer: '' }, 9);
    expect(record).toEqual({ identifier: 'did:web:example.org', control_method: 'did-web', control_evidence: { note: ' x ' }, verdict: 'CONTROL-DOCUMENTED', claimsAt: 9 });
  });

  it('is deterministic apart from claimsAt', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.dictionary(fc.string(), fc.jsonValue()), fc.nat(), fc.nat(), (identifier, evidence, t1, t2) => {
        const input = { identifier, control_method: 'm', control_evidence: evidence as never };
        expect(canonicalText({ ...proveControl(input, t1).record, claimsAt: 0 })).toBe(canonicalText({ ...proveControl(input, t2).record, claimsAt: 0 }));
      }),
    );
  });
});
