import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { recoverMessageAddress } from 'viem';
import {
  decodeBase58,
  decodeBinary,
  ed25519KeyOf,
  ed25519KeyOfDidKey,
  recoverEip191Address,
  verifyBySigner,
  verifyEd25519,
  verifyEip191,
} from './offline-signatures.ts';
import { edSigner, encodeBase58, evmSigner } from '../../test/support/keys.ts';

describe('signatures', () => {
  it('decodes base58 (leading zeros included) as the reference encoder encodes it', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        expect(Buffer.from(decodeBase58(encodeBase58(bytes))!)).toEqual(Buffer.from(bytes));
      }),
    );
    expect(decodeBase58('0OIl')).toBeUndefined();
  });

  it('reads an Ed25519 did:key and refuses other multicodecs', () => {
    const s = edSigner(7);
    const parsed = ed25519KeyOfDidKey(s.didKey);
    expect('key' in parsed && Buffer.from(parsed.key).toString('hex')).toBe(s.hex);
    expect(s.didKey.startsWith('did:key:z6Mk')).toBe(true);
    const secp = `did:key:z${encodeBase58(new Uint8Array([0xe7, 0x01, ...new Uint8Array(33).fill(2)]))}`;
    expect(ed25519KeyOfDidKey(secp)).toEqual({ reason: expect.stringContaining('Ed25519') });
    expect(ed25519KeyOfDidKey('did:web:example.org')).toEqual({ reason: 'not a base58btc did:key' });
  });

  it('accepts a raw Ed25519 key in hex, 0x-hex or base64', () => {
    const s = edSigner(3);
    for (const form of [s.hex, `0x${s.hex}`, s.base64, s.didKey]) expect(Buffer.from(ed25519KeyOf(form)!).toString('hex')).toBe(s.hex);
    expect(ed25519KeyOf('abcd')).toBeUndefined();
    expect(decodeBinary('!!', 1)).toBeUndefined();
    expect(decodeBinary('0xzz', 1)).toBeUndefined();
  });

  it('verifies Ed25519 and rejects a changed message, a wrong key or a short signature', () => {
    const s = edSigner(1);
    const sig = s.sign('hello');
    expect(verifyEd25519(s.publicKey, Buffer.from('hello'), sig)).toEqual({ ok: true });
    expect(verifyEd25519(s.publicKey, Buffer.from('hellO'), sig).ok).toBe(false);
    expect(verifyEd25519(edSigner(2).publicKey, Buffer.from('hello'), sig).ok).toBe(false);
    expect(verifyEd25519(s.publicKey, Buffer.from('hello'), sig.slice(0, 100))).toEqual({ ok: false, reason: expect.stringContaining('64 bytes') });
    expect(verifyEd25519(s.publicKey, Buffer.from('hello'), Buffer.from(sig, 'hex').toString('base64'))).toEqual({ ok: true });
  });

  it('refuses a key of small order: R the identity and S zero would otherwise "verify" any message under the identity as key (did:key included)', () => {
    const identityKey = `01${'00'.repeat(31)}`;
    const forged = `01${'00'.repeat(63)}`;
    const did = 'did:key:z6MkeXATEjyXENzBXBxgC5EHk2JE5aqd7qMGGtDpLUH1e2Sj';
    expect(Buffer.from(ed25519KeyOf(did)!).toString('hex')).toBe(identityKey);
    for (const key of [ed25519KeyOf(identityKey)!, ed25519KeyOf(did)!]) {
      expect(verifyEd25519(key, Buffer.from('I am the CEO of example.com'), forged)).toEqual({ ok: false, reason: expect.stringContaining('small order') });
    }
    expect(verifyBySigner(did, 'anything', forged).ok).toBe(false);
  });

  it('recovers an EIP-191 signer exactly as viem does', async () => {
    const w = evmSigner(0x11);
    const sig = await w.sign('prove it');
    expect(recoverEip191Address('prove it', sig)).toEqual({ address: (await recoverMessageAddress({ message: 'prove it', signature: sig })).toLowerCase() });
    expect(verifyEip191(w.address, 'prove it', sig)).toEqual({ ok: true });
    expect(verifyEip191(w.address, 'prove it!', sig).ok).toBe(false);
    expect(verifyEip191(w.address, 'prove it', `${sig.slice(0, -2)}05`)).toEqual({ ok: false, reason: expect.stringContaining('recovery byte') });
    expect(verifyEip191(w.address, 'prove it', '0x1234')).toEqual({ ok: false, reason: expect.stringContaining('65 bytes') });
  });

  it('picks the scheme from the signer', async () => {
    const w = evmSigner(0x22);
    const s = edSigner(9);
    expect(verifyBySigner(w.address, 'm', await w.sign('m'))).toMatchObject({ ok: true, scheme: 'eip191' });
    expect(verifyBySigner(s.didKey, 'm', s.sign('m'))).toMatchObject({ ok: true, scheme: 'ed25519' });
    expect(verifyBySigner('did:web:example.org', 'm', s.sign('m'))).toMatchObject({ ok: false });
  });
});
