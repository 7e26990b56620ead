import type { Keyring } from '../../../signing/keyring.ts';
import { canonicalBytes, type JsonValue } from '../../../signing/rfc8785.ts';
import { sha256Hex } from '../../../signing/hash.ts';
import { ed25519Verifies } from '../../../kernel/signed-record.ts';
import { signingStampOf } from '../../../kernel/signing-stamp.ts';
import type { CheckedBlock } from './engine.ts';

export interface SignedBlockEvidence {
  record: JsonValue;
  sha256: string;
  ed25519Sig: string;
  publicKey?: string | undefined;
}

/**
 * Checks a block's signature offline: with the supplied public key (an external signer), or else
 * against this service's own keys of every family and generation (a result of ours, which must
 * carry the key of its time). No signature: unsigned, weight 0.
 */
export function checkBlockSignature(signed: SignedBlockEvidence | undefined, keyring: Keyring): CheckedBlock['signature'] {
  if (!signed) return { status: 'unsigned', detail: 'no signature: listed, weight 0' };
  let bytes: Buffer;
  try {
    bytes = canonicalBytes(signed.record);
  } catch (err) {
    return { status: 'signature-invalid', detail: `the record cannot be canonicalised: ${(err as Error).message}` };
  }
  if (sha256Hex(bytes) !== signed.sha256) return { status: 'signature-invalid', detail: 'sha256 does not match the canonical record (changed after signing?)' };
  if (signed.publicKey !== undefined) {
    return ed25519Verifies(signed.publicKey, bytes, signed.ed25519Sig)
      ? { status: 'externally-signed', detail: 'Ed25519 verifies with the supplied public key (the signer is whoever holds it)' }
      : { status: 'signature-invalid', detail: 'the Ed25519 signature does not verify with the supplied public key' };
  }
  const stamp = signingStampOf(signed.record);
  for (const key of keyring.history()) {
    if (!ed25519Verifies(key.publicKeyHex, bytes, signed.ed25519Sig)) continue;
    const inWindow = stamp === undefined || (stamp >= key.validFrom && (key.validUntil === null || stamp < key.validUntil));
    if (!inWindow) return { status: 'signature-invalid', detail: `signed with the ${key.family} key of generation ${key.generation}, not the key of its time`, key_family: key.family, key_id: key.keyId };
    return { status: 'service-signed', detail: `a result of this service, signed with its ${key.family} key`, key_family: key.family, key_id: key.keyId };
  }
  return { status: 'signature-invalid', detail: 'no public key was supplied and no key of this service verifies the signature' };
}
