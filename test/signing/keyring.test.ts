import { createHash, randomBytes, verify as nodeVerify } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createKeyring, familySeed, publicKeyFromHex } from '../../src/signing/keyring.ts';

const SECRET = 'a-test-secret-of-enough-length-0123456789';
const keyring = createKeyring(SECRET);
const ORDER = ed25519.Point.Fn.ORDER;
const message = Buffer.from('{"attestedAt":1767225600,"claim":{"score":0.81},"kind":"model-eval"}');

/** What anyone holding only the published key concludes about a signature. */
function verifiesFromPublicKey(bytes: Uint8Array, signatureHex: string): boolean {
  const publicKey = publicKeyFromHex(keyring.publicKey('veritrack').publicKeyHex);
  return nodeVerify(null, bytes, publicKey, Buffer.from(signatureHex, 'hex'));
}

/**
 * A valid Ed25519 signature of the veritrack key made with a random nonce instead of RFC 8032's
 * deterministic one: what another implementation holding the same key could produce.
 */
function signWithRandomNonce(bytes: Uint8Array, addToS = 0n): string {
  const { scalar, pointBytes } = ed25519.utils.getExtendedPublicKey(familySeed(SECRET, 'veritrack'));
  const nonce = bytesToNumberLE(randomBytes(64)) % ORDER;
  const r = ed25519.Point.BASE.multiply(nonce).toBytes();
  const challenge = bytesToNumberLE(createHash('sha512').update(r).update(pointBytes).update(bytes).digest()) % ORDER;
  const s = (nonce + challenge * scalar) % ORDER;
  return Buffer.concat([r, numberToBytesLE(s + addToS, 32)]).toString('hex');
}

describe('keyring.verify answers exactly as Ed25519 verification from the public key', () => {
  it('accepts its own deterministic signature', () => {
    const signature = keyring.sign('veritrack', message);
    expect(keyring.verify('veritrack', message, signature)).toBe(true);
    expect(verifiesFromPublicKey(message, signature)).toBe(true);
  });

  it('accepts a valid signature that is not the deterministic one', () => {
    const signature = signWithRandomNonce(message);
    expect(signature).not.toBe(keyring.sign('veritrack', message));
    expect(ed25519.verify(Buffer.from(signature, 'hex'), message, Buffer.from(keyring.publicKey('veritrack').publicKeyHex, 'hex'))).toBe(true);
    expect(keyring.verify('veritrack', message, signature)).toBe(true);
  });

  it('refuses the same signature with S + L (the non-canonical scalar) and under another family', () => {
    const malleated = signWithRandomNonce(message, ORDER);
    expect(verifiesFromPublicKey(message, malleated)).toBe(false);
    expect(keyring.verify('veritrack', message, malleated)).toBe(false);
    expect(keyring.verify('memory', message, keyring.sign('veritrack', message))).toBe(false);
  });

  it('agrees with verification on random messages and on every one-byte change of a genuine signature', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat(63), fc.integer({ min: 1, max: 255 }), (bytes, at, xor) => {
        const genuine = Buffer.from(keyring.sign('veritrack', bytes), 'hex');
        const changed = Buffer.from(genuine);
        changed[at]! ^= xor;
        for (const signature of [genuine, changed].map((b) => b.toString('hex'))) {
          expect(keyring.verify('veritrack', bytes, signature)).toBe(verifiesFromPublicKey(bytes, signature));
        }
        expect(keyring.verify('veritrack', bytes, changed.toString('hex'))).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});
