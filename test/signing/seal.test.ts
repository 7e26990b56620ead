import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { statSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ed25519 } from '@noble/curves/ed25519.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalBytes } from '../../src/signing/rfc8785.ts';
import { sha256Hex } from '../../src/signing/hash.ts';
import { KEY_FAMILY_NAMES } from '../../src/signing/key-families.ts';
import { createKeyring, createRotatingKeyring, keyIdOf, resolveAttestationSecret } from '../../src/signing/keyring.ts';
import { canonicalForm, check, seal, sealOffTheLoop, THREAD_POOL_SIGNING_BYTES } from '../../src/signing/seal.ts';

const keyring = createKeyring('a-test-secret-of-enough-length-0123456789');
const record = { kind: 'model-eval', attestedAt: 1767225600, claim: { score: 0.81, tags: ['a', 'é'] } };

describe('seal and check', () => {
  it('publishes 24 distinct family keys (the spec\'s 22, the result log\'s and the credentials\'), each with keyId = first 16 hex of SHA-256(raw key)', () => {
    const keys = keyring.all();
    expect(keys).toHaveLength(24);
    expect(new Set(keys.map((k) => k.publicKeyHex)).size).toBe(24);
    for (const k of keys) {
      expect(k.publicKeyHex).toMatch(/^[0-9a-f]{64}$/);
      expect(k.keyId).toBe(sha256Hex(Buffer.from(k.publicKeyHex, 'hex')).slice(0, 16));
      expect(keyIdOf(Buffer.from(k.publicKeyHex, 'hex'))).toBe(k.keyId);
    }
  });

  it('derives the same keys from the same secret and different keys from another', () => {
    expect(createKeyring('a-test-secret-of-enough-length-0123456789').publicKey('memory')).toEqual(keyring.publicKey('memory'));
    expect(createKeyring('another-secret-of-enough-length-987654321').publicKey('memory').publicKeyHex).not.toBe(
      keyring.publicKey('memory').publicKeyHex,
    );
  });

  it('signs the canonical bytes: @noble/curves and node:crypto verify from the published public key alone', () => {
    const s = seal(keyring, 'veritrack', record);
    const bytes = canonicalBytes(record);
    const publicKeyHex = keyring.publicKey('veritrack').publicKeyHex;
    expect(s.sha256).toBe(sha256Hex(bytes));
    expect(ed25519.verify(Buffer.from(s.ed25519Sig, 'hex'), bytes, Buffer.from(publicKeyHex, 'hex'))).toBe(true);
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(publicKeyHex, 'hex')]);
    expect(nodeVerify(null, bytes, createPublicKey({ key: spki, format: 'der', type: 'spki' }), Buffer.from(s.ed25519Sig, 'hex'))).toBe(true);
  });

  it('is deterministic: Ed25519 gives the same signature for the same record', () => {
    expect(seal(keyring, 'evidence', record)).toEqual(seal(keyring, 'evidence', { claim: record.claim, attestedAt: record.attestedAt, kind: record.kind }));
  });

  it('signs on the thread pool with the key sign() would choose, giving sign()\'s own signature', async () => {
    const bytes = canonicalBytes(record);
    expect(await keyring.signOnThreadPool('veritrack', bytes)).toBe(keyring.sign('veritrack', bytes));
    const rotating = createRotatingKeyring([
      { generation: 0, validFrom: 0, secret: 'a-test-secret-of-enough-length-0123456789' },
      { generation: 1, validFrom: 1_000, secret: 'the-next-secret-of-enough-length-0123456789' },
    ], () => 2_000);
    expect(await rotating.signOnThreadPool('veritrack', bytes, 500)).toBe(rotating.sign('veritrack', bytes, 500));
    expect(await rotating.signOnThreadPool('veritrack', bytes)).toBe(rotating.sign('veritrack', bytes));
    expect(await rotating.signOnThreadPool('veritrack', bytes)).not.toBe(rotating.sign('veritrack', bytes, 500));
  });

  it('seals a record of THREAD_POOL_SIGNING_BYTES or more on the thread pool, and gives seal()\'s own seal for any size', async () => {
    const large = { ...record, claim: { notes: 'é'.repeat(THREAD_POOL_SIGNING_BYTES) } };
    let onThreadPool = 0;
    const counting = { ...keyring, signOnThreadPool: (...args: Parameters<typeof keyring.signOnThreadPool>) => (onThreadPool++, keyring.signOnThreadPool(...args)) };
    expect(await sealOffTheLoop(counting, 'veritrack', canonicalForm(large))).toEqual(seal(keyring, 'veritrack', large));
    expect(onThreadPool).toBe(1);
    expect(await sealOffTheLoop(counting, 'veritrack', canonicalForm(record))).toEqual(seal(keyring, 'veritrack', record));
    expect(onThreadPool).toBe(1);
  });

  it('accepts the genuine record and refuses any change of content, hash, signature or key family', () => {
    const s = seal(keyring, 'veritrack', record);
    expect(check(keyring, 'veritrack', record, s.sha256, s.ed25519Sig).valid).toBe(true);
    expect(check(keyring, 'veritrack', { ...record, attestedAt: record.attestedAt + 1 }, s.sha256, s.ed25519Sig)).toMatchObject({
      valid: false,
      checks: { sha256: false, signature: false },
    });
    const flip = (hex: string, at: number) => hex.slice(0, at) + (hex[at] === '0' ? '1' : '0') + hex.slice(at + 1);
    expect(check(keyring, 'veritrack', record, flip(s.sha256, 10), s.ed25519Sig)).toMatchObject({ valid: false, checks: { sha256: false, signature: true } });
    expect(check(keyring, 'veritrack', record, s.sha256, flip(s.ed25519Sig, 70))).toMatchObject({ valid: false, checks: { sha256: true, signature: false } });
    expect(check(keyring, 'veritrack', record, s.sha256.toUpperCase(), s.ed25519Sig).valid).toBe(false);
    expect(check(keyring, 'memory', record, s.sha256, s.ed25519Sig).valid).toBe(false);
  });

  it('never throws on arbitrary strings for hash and signature', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (h, sig) => {
        expect(check(keyring, 'data', record, h, sig).valid).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('covers every key family', () => {
    for (const family of KEY_FAMILY_NAMES) {
      const s = seal(keyring, family, record);
      expect(check(keyring, family, record, s.sha256, s.ed25519Sig).valid).toBe(true);
    }
  });
});

describe('attestation secret', () => {
  it('is generated once into the data dir with mode 0600 and reused on the next start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'secret-'));
    try {
      const first = resolveAttestationSecret(undefined, dir);
      expect(first.origin).toBe('generated');
      expect(statSync(first.path!).mode & 0o777).toBe(0o600);
      const second = resolveAttestationSecret(undefined, dir);
      expect(second).toMatchObject({ origin: 'data-dir', secret: first.secret });
      expect(readFileSync(first.path!, 'utf8').trim()).toBe(first.secret);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prefers ATTESTATION_SECRET and writes nothing then', () => {
    expect(resolveAttestationSecret('x'.repeat(40), '/nonexistent/dir')).toEqual({ secret: 'x'.repeat(40), origin: 'environment' });
  });
});
