import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { base58 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../signing/rfc8785.ts';
import signedVector from '../../test/fixtures/vc-di-eddsa/eddsa-jcs-2022-signed.json' with { type: 'json' };
import keyPair from '../../test/fixtures/vc-di-eddsa/key-pair.json' with { type: 'json' };
import { addProof, didKeyOf, didKeyResolver, publicKeyOfMultikey, verifyProof } from './eddsa-jcs-2022.ts';

const SPKI = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8 = Buffer.from('302e020100300506032b657004220420', 'hex');
const ed25519Verify = (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) =>
  verify(null, message, createPublicKey({ key: Buffer.concat([SPKI, publicKey]), format: 'der', type: 'spki' }), signature);

const vectorKey = publicKeyOfMultikey(keyPair.publicKeyMultibase);
const resolveVector = (method: string) => (method.endsWith(`#${keyPair.publicKeyMultibase}`) ? vectorKey : undefined);

describe('eddsa-jcs-2022 against the W3C test vector', () => {
  it('verifies the specification\'s signed credential', () => {
    expect(verifyProof(signedVector as JsonObject, resolveVector, ed25519Verify)).toEqual({ verified: true, verificationMethod: signedVector.proof.verificationMethod });
  });

  it('signs the unsecured credential to the same proof value with the vector\'s key', () => {
    // Multibase private key: 0x80 0x26 (ed25519-priv) then the 32-byte seed.
    const secret = base58.decode(keyPair.privateKeyMultibase.slice(1));
    expect([...secret.slice(0, 2)]).toEqual([0x80, 0x26]);
    const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8, secret.slice(2)]), format: 'der', type: 'pkcs8' });
    const { proof, ...unsecured } = signedVector;
    const secured = addProof(unsecured as JsonObject, { verificationMethod: proof.verificationMethod, created: proof.created }, (m) => sign(null, m, privateKey));
    expect(secured).toEqual(signedVector);
  });

  it('fails on a changed subject, a changed proof option, another key, or a context that is not the document\'s', () => {
    const changed = (f: (doc: typeof signedVector) => void) => {
      const doc = structuredClone(signedVector);
      f(doc);
      return verifyProof(doc as JsonObject, resolveVector, ed25519Verify).verified;
    };
    expect(changed((d) => (d.credentialSubject.alumniOf = 'Another School'))).toBe(false);
    expect(changed((d) => (d.proof.created = '2023-02-24T23:36:39Z'))).toBe(false);
    expect(changed((d) => (d.proof.proofValue = `z${base58.encode(new Uint8Array(64))}`))).toBe(false);
    expect(changed((d) => (d.proof['@context'] = ['https://www.w3.org/ns/credentials/v2']))).toBe(false);
    const other = didKeyOf(new Uint8Array(32).fill(9));
    expect(verifyProof(signedVector as JsonObject, () => publicKeyOfMultikey(other.did.slice('did:key:'.length)), ed25519Verify).verified).toBe(false);
  });

  it('resolves did:key verification methods offline, and nothing else', () => {
    const { verificationMethod } = didKeyOf(vectorKey);
    expect(verificationMethod).toBe(`did:key:${keyPair.publicKeyMultibase}#${keyPair.publicKeyMultibase}`);
    expect(didKeyResolver(verificationMethod)).toEqual(vectorKey);
    expect(didKeyResolver('did:web:example.com#key-1')).toBeUndefined();
    expect(didKeyResolver(`did:key:${keyPair.publicKeyMultibase}#z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK`)).toBeUndefined();
  });
});
