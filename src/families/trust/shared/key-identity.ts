import { classifyIdentifier } from '../identity-control-proof/engine.ts';

/**
 * The key an identifier stands for, so that two spellings of one key compare equal: a did:key,
 * its hex and its base64 are one Ed25519 key; an address and its did:pkh:eip155 are one EVM
 * account. The chain id of a did:pkh is not part of it: one secp256k1 key holds the same
 * address on every EVM chain.
 */
export type KeyIdentity = { scheme: 'ed25519'; key: string } | { scheme: 'evm'; address: string };

/**
 * The key identity of an EVM address, did:pkh:eip155, did:key (Ed25519) or raw Ed25519 key, read
 * as identity control-proof reads an identifier; undefined for anything else. Surrounding white
 * space does not make another identifier.
 */
export function keyIdentityOf(identifier: string): KeyIdentity | undefined {
  const read = classifyIdentifier(identifier.trim());
  if (read.kind === 'evm') return { scheme: 'evm', address: read.address };
  if (read.kind === 'ed25519') return { scheme: 'ed25519', key: Buffer.from(read.key).toString('hex') };
  return undefined;
}

/** One text per key: `ed25519:<hex>` or `evm:<lower-case address>`. */
export function keyIdentityText(identity: KeyIdentity): string {
  return identity.scheme === 'ed25519' ? `ed25519:${identity.key}` : `evm:${identity.address}`;
}

export type SameHolder =
  /** Both sides name a key: the keys were compared. */
  | { compared: 'key identity'; same: boolean }
  /** At least one side names no key that can be read offline (did:web, a name): the texts were compared, case-insensitively. */
  | { compared: 'text'; same: boolean; unresolved: 'first' | 'second' | 'both' };

/** Whether two identifiers name the same key holder, and what could be compared to tell. */
export function sameHolder(first: string, second: string): SameHolder {
  const a = keyIdentityOf(first);
  const b = keyIdentityOf(second);
  if (a && b) return { compared: 'key identity', same: keyIdentityText(a) === keyIdentityText(b) };
  return { compared: 'text', same: first.trim().toLowerCase() === second.trim().toLowerCase(), unresolved: a ? 'second' : b ? 'first' : 'both' };
}
