import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify as nodeVerify } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ed25519Backend, ed25519Signer, ed25519Verifier, isWeakPublicKey, signerWith, verifyEd25519, verifyWithNodeCrypto } from './rfc8032.ts';

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const rawPublicKey = (key: ReturnType<typeof createPublicKey>) => key.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex');
const libsodium = createRequire(import.meta.url)('sodium-native') as Parameters<typeof ed25519Verifier>[0];
const withLibsodium = ed25519Verifier(libsodium);

/** RFC 8032, 7.1, TEST 1 and TEST 2: the secret seed, the public key, the message and the signature. */
const RFC8032_VECTORS = [
  {
    seed: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    publicKey: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    message: '',
    signature: 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    seed: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    publicKey: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '72',
    signature: '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
];

describe('Ed25519 verification (RFC 8032), libsodium first with node:crypto verdicts', () => {
  it('uses libsodium where its binary loads (it ships inside the package for this platform)', () => {
    expect(ed25519Backend()).toBe('libsodium');
  });

  it('accepts the RFC 8032 test vectors, and refuses each with one bit of the signature flipped', () => {
    for (const v of RFC8032_VECTORS) {
      const secret = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, Buffer.from(v.seed, 'hex')]), format: 'der', type: 'pkcs8' });
      expect(rawPublicKey(createPublicKey(secret))).toBe(v.publicKey);
      const message = Buffer.from(v.message, 'hex');
      const signature = Buffer.from(v.signature, 'hex');
      for (const verify of [withLibsodium, verifyWithNodeCrypto]) {
        expect(verify(message, signature, v.publicKey)).toBe(true);
        const flipped = Buffer.from(signature);
        flipped[10]! ^= 0x04;
        expect(verify(message, flipped, v.publicKey)).toBe(false);
      }
    }
  });

  it("gives node:crypto's verdict for valid and tampered signatures of random messages", () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const keyHex = rawPublicKey(publicKey);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(), fc.constantFrom('none', 'message', 'signature', 'key'), (bytes, at, tamper) => {
        const message = Buffer.from(bytes);
        const signature = sign(null, message, privateKey);
        let key = keyHex;
        if (tamper === 'message' && message.length > 0) message[at % message.length]! ^= 0x01;
        if (tamper === 'signature') signature[at % 64]! ^= 1 << (at % 8);
        if (tamper === 'key') key = `${keyHex.slice(0, 62)}${((parseInt(keyHex.slice(62), 16) + 1) % 256).toString(16).padStart(2, '0')}`;
        const expected = verifyWithNodeCrypto(message, signature, key);
        expect(withLibsodium(message, signature, key)).toBe(expected);
        expect(verifyEd25519(message, signature, key)).toBe(expected);
        if (tamper === 'none') expect(expected).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('refuses weak keys with either library: against the identity as key, R the identity and S zero "verify" any message in OpenSSL', () => {
    const identity = `01${'00'.repeat(31)}`;
    const signature = Buffer.concat([Buffer.from(identity, 'hex'), Buffer.alloc(32)]);
    const message = Buffer.from('any message at all');
    expect(nodeVerify(null, message, createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(identity, 'hex')]), format: 'der', type: 'spki' }), signature)).toBe(true);
    expect(libsodium!.crypto_sign_verify_detached(signature, message, Buffer.from(identity, 'hex'))).toBe(false);
    for (const verify of [withLibsodium, verifyWithNodeCrypto, verifyEd25519]) expect(verify(message, signature, identity)).toBe(false);
  });

  it('calls a key weak exactly when it is of small order or not canonically encoded, as @noble/curves decides it', () => {
    const le = (n: bigint, signBit: boolean) => {
      const bytes = Buffer.from(n.toString(16).padStart(64, '0'), 'hex').reverse();
      if (signBit) bytes[31]! |= 0x80;
      return bytes;
    };
    const decide = (raw: Uint8Array): boolean | undefined => {
      const y = BigInt(`0x${Buffer.from(raw).reverse().toString('hex')}`) & ((1n << 255n) - 1n);
      if (y >= (1n << 255n) - 19n) return true;
      try {
        return ed25519.Point.fromBytes(raw).isSmallOrder();
      } catch {
        return undefined; // not a point at all: OpenSSL refuses it anyway
      }
    };
    // The eight points of small order: every multiple of a point of order 8, in both signs of x.
    const torsion = Array.from({ length: 8 }, (_, k) => ed25519.Point.fromBytes(le(2707385501144840649318225287225658788936804267575313519463743609750303402022n, false)).multiply(BigInt(k + 1)));
    for (const point of torsion) {
      expect(point.isSmallOrder()).toBe(true);
      expect(isWeakPublicKey(point.toBytes())).toBe(true);
    }
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (raw) => {
        const expected = decide(raw);
        if (expected !== undefined) expect(isWeakPublicKey(raw)).toBe(expected);
      }),
      { numRuns: 500 },
    );
    for (let i = 0; i < 50; i++) expect(isWeakPublicKey(ed25519.getPublicKey(ed25519.utils.randomSecretKey()))).toBe(false);
    expect(isWeakPublicKey(le((1n << 255n) - 19n + 1n, false))).toBe(true);
  });

  it('refuses an S that is not below the group order L, malformed lengths and keys, without throwing', () => {
    const v = RFC8032_VECTORS[0]!;
    const signature = Buffer.from(v.signature, 'hex');
    // S + L: the same point equation, an S outside [0, L) (RFC 8032, 5.1.7 step 1).
    const L = (1n << 252n) + 27742317777372353535851937790883648493n;
    const s = BigInt(`0x${Buffer.from(signature.subarray(32)).reverse().toString('hex')}`) + L;
    const malleated = Buffer.concat([signature.subarray(0, 32), Buffer.from(s.toString(16).padStart(64, '0'), 'hex').reverse()]);
    for (const verify of [withLibsodium, verifyWithNodeCrypto]) {
      expect(verify(Buffer.alloc(0), malleated, v.publicKey)).toBe(false);
      expect(verify(Buffer.alloc(0), signature.subarray(0, 63), v.publicKey)).toBe(false);
      expect(verify(Buffer.alloc(0), signature, v.publicKey.slice(2))).toBe(false);
      expect(verify(Buffer.alloc(0), signature, `zz${v.publicKey.slice(2)}`)).toBe(false);
    }
  });

  it('is node:crypto alone where libsodium cannot load', () => {
    expect(ed25519Verifier(undefined)).toBe(verifyWithNodeCrypto);
  });
});

describe('Ed25519 signing (RFC 8032), libsodium where it loads', () => {
  const keyOf = (seed: Uint8Array) => createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });

  it('gives the RFC 8032 test vectors, with libsodium and with node:crypto', () => {
    for (const v of RFC8032_VECTORS) {
      const seed = Buffer.from(v.seed, 'hex');
      for (const library of [libsodium, undefined]) expect(signerWith(seed, keyOf(seed), library)(Buffer.from(v.message, 'hex')).toString('hex')).toBe(v.signature);
    }
  });

  it('gives the same bytes as node:crypto for any seed and message (signatures are deterministic)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 500 }), (seed, message) => {
        const key = keyOf(seed);
        expect(signerWith(seed, key, libsodium)(message).equals(sign(null, message, key))).toBe(true);
        expect(ed25519Signer(seed, key)(message).equals(sign(null, message, key))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
