import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assessControl, classifyIdentifier, proveControl, type ControlProofInput } from './engine.ts';
import { controlProofMessage } from './control-message.ts';
import { SIGNED_PROOF_WINDOW_SECONDS } from '../../../kernel/offline-signatures.ts';
import { canonicalText } from '../../../signing/rfc8785.ts';
import { edSigner, evmSigner } from '../../../../test/support/keys.ts';

const NOW = 1_790_000_000;
const claimer = 'ops team';

/** Who signs, and the spellings of its identifier the engine checks offline. */
interface ClaimSigner {
  identifier: string;
  /** The same key under another identifier. */
  sameKeyElsewhere: string;
  sign(message: string): Promise<string> | string;
}

const schemes: Array<[string, () => ClaimSigner, () => ClaimSigner]> = [
  [
    'EIP-191 (EVM address, did:pkh)',
    () => {
      const w = evmSigner(0x31);
      return { identifier: w.address, sameKeyElsewhere: `did:pkh:eip155:8453:${w.address}`, sign: w.sign };
    },
    () => {
      const w = evmSigner(0x32);
      return { identifier: w.address, sameKeyElsewhere: w.lower, sign: w.sign };
    },
  ],
  [
    'Ed25519 (did:key, raw key)',
    () => {
      const s = edSigner(5);
      return { identifier: s.didKey, sameKeyElsewhere: s.hex, sign: s.sign };
    },
    () => {
      const s = edSigner(6);
      return { identifier: s.didKey, sameKeyElsewhere: s.base64, sign: s.sign };
    },
  ],
];

describe.each(schemes)('identity control-proof engine, %s', (_scheme, signer, otherSigner) => {
  const claim = async (message: string, over: Partial<ControlProofInput> = {}, by = signer()): Promise<ControlProofInput> => ({
    identifier: by.identifier,
    control_method: 'signature',
    control_evidence: { message, signature: await by.sign(message) },
    claimer,
    ...over,
  });

  it('CONTROL-VERIFIED for a signature over this claim\'s text, with or without a claimer; not for a signature over any other message', async () => {
    const s = signer();
    expect(assessControl(await claim(controlProofMessage(s.identifier, claimer, NOW)), NOW)).toMatchObject({ verdict: 'CONTROL-VERIFIED' });
    expect(assessControl(await claim(controlProofMessage(s.identifier, undefined, NOW - 10), { claimer: undefined }), NOW).verdict).toBe('CONTROL-VERIFIED');
    // An empty claimer is left out of the record, so the text without a claimer is the one.
    expect(assessControl(await claim(controlProofMessage(s.identifier, undefined, NOW), { claimer: '' }), NOW).verdict).toBe('CONTROL-VERIFIED');
    // Any message the key ever signed (a login message, a post) proves nothing about this claim.
    expect(assessControl(await claim('Sign in to example.org. nonce 42'), NOW)).toMatchObject({ verdict: 'CONTROL-FAILED', reason: expect.stringContaining('the signature verifies, but') });
  });

  it('CONTROL-FAILED when the text names another claimer, adds or drops the claimer', async () => {
    const s = signer();
    expect(assessControl(await claim(controlProofMessage(s.identifier, 'someone else', NOW)), NOW)).toMatchObject({ verdict: 'CONTROL-FAILED', reason: expect.stringContaining("not this claim's text") });
    expect(assessControl(await claim(controlProofMessage(s.identifier, undefined, NOW)), NOW).verdict).toBe('CONTROL-FAILED');
    expect(assessControl(await claim(controlProofMessage(s.identifier, claimer, NOW), { claimer: undefined }), NOW).verdict).toBe('CONTROL-FAILED');
  });

  it('CONTROL-FAILED when the text names another identifier, even one of the same key', async () => {
    const s = signer();
    expect(assessControl(await claim(controlProofMessage(otherSigner().identifier, claimer, NOW)), NOW).verdict).toBe('CONTROL-FAILED');
    expect(assessControl(await claim(controlProofMessage(s.sameKeyElsewhere, claimer, NOW)), NOW).verdict).toBe('CONTROL-FAILED');
    // The record names the identifier as sent: the text must name it the same way.
    expect(assessControl(await claim(controlProofMessage(s.identifier, claimer, NOW), { identifier: s.sameKeyElsewhere }), NOW).verdict).toBe('CONTROL-FAILED');
    expect(assessControl(await claim(controlProofMessage(s.sameKeyElsewhere, claimer, NOW), { identifier: s.sameKeyElsewhere }), NOW).verdict).toBe('CONTROL-VERIFIED');
  });

  it(`CONTROL-FAILED when signed_at is more than ${SIGNED_PROOF_WINDOW_SECONDS} s from the claim's clock, either way`, async () => {
    const s = signer();
    const at = async (signedAt: number) => assessControl(await claim(controlProofMessage(s.identifier, claimer, signedAt)), NOW);
    expect(await at(NOW - SIGNED_PROOF_WINDOW_SECONDS - 1)).toMatchObject({ verdict: 'CONTROL-FAILED', reason: expect.stringContaining(`more than ${SIGNED_PROOF_WINDOW_SECONDS} s`) });
    expect((await at(NOW + SIGNED_PROOF_WINDOW_SECONDS + 1)).verdict).toBe('CONTROL-FAILED');
    expect((await at(NOW - SIGNED_PROOF_WINDOW_SECONDS)).verdict).toBe('CONTROL-VERIFIED');
    expect((await at(NOW + SIGNED_PROOF_WINDOW_SECONDS)).verdict).toBe('CONTROL-VERIFIED');
  });

  it('reads signed_at strictly: no leading zero, fraction, sign or trailing text', async () => {
    const s = signer();
    const text = controlProofMessage(s.identifier, claimer, NOW);
    for (const message of [text.replace(` at ${NOW}`, ` at 0${NOW}`), `${text}.0`, text.replace(` at ${NOW}`, ` at +${NOW}`), `${text}\n`, `${text} `, text.replace(` at ${NOW}`, ` at`)]) {
      expect(assessControl(await claim(message), NOW).verdict, JSON.stringify(message)).toBe('CONTROL-FAILED');
    }
  });

  it('CONTROL-FAILED for a signature by another key over this claim\'s text, or a malformed one', async () => {
    const s = signer();
    const text = controlProofMessage(s.identifier, claimer, NOW);
    const byOther = { message: text, signature: await otherSigner().sign(text) };
    expect(assessControl({ identifier: s.identifier, control_method: 'm', control_evidence: byOther, claimer }, NOW).verdict).toBe('CONTROL-FAILED');
    expect(assessControl({ identifier: s.identifier, control_method: 'm', control_evidence: { message: text, signature: 'nope' }, claimer }, NOW).verdict).toBe('CONTROL-FAILED');
  });
});

describe('identity control-proof engine', () => {
  it('an EVM identifier may be written in any letter case, if the text names it the same way', async () => {
    const w = evmSigner(0x31);
    for (const identifier of [w.address, w.lower, `did:pkh:eip155:1:${w.lower}`]) {
      const message = controlProofMessage(identifier, undefined, NOW);
      expect(assessControl({ identifier, control_method: 'eip191-signature', control_evidence: { message, signature: await w.sign(message) } }, NOW).verdict, identifier).toBe('CONTROL-VERIFIED');
    }
  });

  it('a raw Ed25519 key may be hex or base64, if the text names it the same way', () => {
    const s = edSigner(5);
    for (const identifier of [s.hex, s.base64]) {
      const message = controlProofMessage(identifier, claimer, NOW);
      expect(assessControl({ identifier, control_method: 'ed25519-signature', control_evidence: { message, signature: s.sign(message) }, claimer }, NOW).verdict, identifier).toBe('CONTROL-VERIFIED');
    }
  });

  it('CONTROL-DOCUMENTED for evidence that cannot be checked offline', async () => {
    const docs = { dns_txt: 'agent-control=abc', url: 'https://example.org/.well-known/did.json' };
    for (const identifier of ['did:web:example.org', 'example.org', 'https://example.org/agent']) {
      expect(assessControl({ identifier, control_method: 'did-web', control_evidence: docs }, NOW).verdict, identifier).toBe('CONTROL-DOCUMENTED');
    }
    // A did:web with a signature, even over this claim's text, still needs its DID document (network) to find the key.
    const message = controlProofMessage('did:web:example.org', undefined, NOW);
    expect(assessControl({ identifier: 'did:web:example.org', control_method: 'm', control_evidence: { message, signature: edSigner(1).sign(message) } }, NOW).verdict).toBe('CONTROL-DOCUMENTED');
    // A checkable identifier with evidence that is not a {message, signature} pair.
    const w = evmSigner(0x31);
    expect(assessControl({ identifier: w.address, control_method: 'dns-txt', control_evidence: docs }, NOW).verdict).toBe('CONTROL-DOCUMENTED');
    expect(classifyIdentifier('did:key:z6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc').kind).toBe('unverifiable');
  });

  it('NOT-PROVIDED without evidence, or with an empty object', () => {
    expect(assessControl({ identifier: '0x0000000000000000000000000000000000000001', control_method: 'm' }, NOW).verdict).toBe('NOT-PROVIDED');
    expect(assessControl({ identifier: 'did:web:example.org', control_method: 'm', control_evidence: {} }, NOW).verdict).toBe('NOT-PROVIDED');
  });

  it('builds the record with the evidence verbatim and empty optionals left out', () => {
    const { record } = proveControl({ identifier: 'did:web:example.org', control_method: 'did-web', control_evidence: { note: ' x ' }, claimer: '' }, 9);
    expect(record).toEqual({ identifier: 'did:web:example.org', control_method: 'did-web', control_evidence: { note: ' x ' }, verdict: 'CONTROL-DOCUMENTED', claimsAt: 9 });
  });

  it('is deterministic apart from claimsAt for evidence that is not a proof in the claim\'s text (whose verdict the clock decides, above)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.dictionary(fc.string(), fc.jsonValue()), fc.nat(), fc.nat(), (identifier, evidence, t1, t2) => {
        const input = { identifier, control_method: 'm', control_evidence: evidence as never };
        expect(canonicalText({ ...proveControl(input, t1).record, claimsAt: 0 })).toBe(canonicalText({ ...proveControl(input, t2).record, claimsAt: 0 }));
      }),
    );
  });
});
