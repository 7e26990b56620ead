import { describe, expect, it } from 'vitest';
import { keyIdentityOf, sameHolder } from './key-identity.ts';
import { edSigner, evmSigner } from '../../../../test/support/keys.ts';

const ed = edSigner(7);
const w = evmSigner(0x07);

describe('key identity', () => {
  it('reads every spelling of one Ed25519 key as that key', () => {
    for (const spelling of [ed.didKey, ed.hex, ed.hex.toUpperCase(), `0x${ed.hex}`, ed.base64, ` ${ed.didKey}\n`]) {
      expect(keyIdentityOf(spelling), spelling).toEqual({ scheme: 'ed25519', key: ed.hex });
    }
  });

  it('reads an address and its did:pkh:eip155 on any chain as one lower-case address', () => {
    for (const spelling of [w.address, w.lower, `did:pkh:eip155:1:${w.address}`, `did:pkh:eip155:8453:${w.lower}`]) {
      expect(keyIdentityOf(spelling), spelling).toEqual({ scheme: 'evm', address: w.lower });
    }
  });

  it('names no key for a did:web, a name or a did:pkh outside eip155', () => {
    for (const text of ['did:web:example.org', 'agent-7', `did:pkh:solana:4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZ:${w.lower}`, '']) expect(keyIdentityOf(text), text).toBeUndefined();
  });

  it('compares keys when both sides name one, text otherwise, and says which', () => {
    expect(sameHolder(ed.hex, ed.didKey)).toEqual({ compared: 'key identity', same: true });
    expect(sameHolder(ed.hex, edSigner(8).didKey)).toEqual({ compared: 'key identity', same: false });
    expect(sameHolder(ed.hex, w.address)).toEqual({ compared: 'key identity', same: false });
    expect(sameHolder('did:web:A.example', 'did:web:a.example')).toEqual({ compared: 'text', same: true, unresolved: 'both' });
    expect(sameHolder(ed.didKey, 'did:web:a.example')).toEqual({ compared: 'text', same: false, unresolved: 'second' });
  });
});
