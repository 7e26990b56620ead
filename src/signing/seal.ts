import { canonicalBytes } from './rfc8785.ts';
import { sha256Hex } from './hash.ts';
import type { KeyFamily } from './key-families.ts';
import type { HistoricKey, Keyring } from './keyring.ts';

export interface Seal {
  sha256: string;
  ed25519Sig: string;
  keyId: string;
}

/**
 * Hashes and signs the canonical bytes of a record with the family's key: the current one, or
 * for a record first signed at `firstSignedAt` and answered again, the key of that time.
 */
export function seal(keyring: Keyring, family: KeyFamily, record: unknown, firstSignedAt?: number): Seal {
  return sealCanonical(keyring, family, canonicalForm(record), firstSignedAt);
}

/** A record's RFC 8785 bytes and their SHA-256: the part of a seal that needs no key. */
export interface CanonicalRecord {
  bytes: Uint8Array;
  sha256: string;
}

/** A record's RFC 8785 bytes and their SHA-256, to be signed on this thread. */
export function canonicalForm(record: unknown): CanonicalRecord {
  const bytes = canonicalBytes(record);
  return { bytes, sha256: sha256Hex(bytes) };
}

/**
 * The canonical form of a record, made where the record is made (an engine thread), so that the
 * event loop signs it without canonicalising again: for an 11 MB record that took a second of
 * the loop. The bytes are canonicalBytes' own, in a buffer of their own: a small Buffer is a
 * view into a pool shared by others, which must not be transferred to another thread.
 */
export function canonicalRecord(record: unknown): CanonicalRecord {
  const owned = ownedBytes(canonicalBytes(record));
  return { bytes: owned, sha256: sha256Hex(owned) };
}

/** `bytes` in a buffer of their own (a copy only when they are a view into a larger one), so that the buffer can be moved to another thread. */
export function ownedBytes(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
}

/** seal() for a record whose canonical form was made already (canonicalRecord): the same Seal, signed over those bytes. */
export function sealCanonical(keyring: Keyring, family: KeyFamily, canonical: CanonicalRecord, firstSignedAt?: number): Seal {
  return {
    sha256: canonical.sha256,
    ed25519Sig: keyring.sign(family, canonical.bytes, firstSignedAt),
    keyId: keyring.publicKey(family, firstSignedAt).keyId,
  };
}

/**
 * Canonical bytes from this size on are signed on the thread pool (sealOffTheLoop): below it,
 * handing the job over costs more than the signature (about 30 us for a small record).
 */
export const THREAD_POOL_SIGNING_BYTES = 256 * 1024;

/**
 * sealCanonical, the signature made on the thread pool when the bytes are THREAD_POOL_SIGNING_BYTES
 * or more (Keyring.signOnThreadPool): the same Seal either way. The key id is read when the
 * signing key is chosen, as sealCanonical reads it.
 */
export async function sealOffTheLoop(keyring: Keyring, family: KeyFamily, canonical: CanonicalRecord, firstSignedAt?: number): Promise<Seal> {
  if (canonical.bytes.byteLength < THREAD_POOL_SIGNING_BYTES) return sealCanonical(keyring, family, canonical, firstSignedAt);
  const { keyId } = keyring.publicKey(family, firstSignedAt);
  return { sha256: canonical.sha256, ed25519Sig: await keyring.signOnThreadPool(family, canonical.bytes, firstSignedAt), keyId };
}

export interface CheckResult {
  valid: boolean;
  checks: { sha256: boolean; signature: boolean };
  reason?: string;
  /** The key that made a valid signature. */
  signer?: HistoricKey;
}

/**
 * Re-canonicalises a record and checks both the digest and the signature. The signature is
 * checked over the recomputed bytes, never over the supplied digest, so a matching pair of
 * forged hash and stale signature cannot pass.
 */
export function check(keyring: Keyring, family: KeyFamily, record: unknown, sha256: string, signatureHex: string, signedAt?: number): CheckResult {
  let bytes: Buffer;
  try {
    bytes = canonicalBytes(record);
  } catch (err) {
    return { valid: false, checks: { sha256: false, signature: false }, reason: `record cannot be canonicalised: ${(err as Error).message}` };
  }
  // Exact lowercase hex on both: the published form is the only accepted form.
  const hashOk = sha256Hex(bytes) === sha256;
  const signer = keyring.signerOf(family, bytes, signatureHex);
  // Given the signing time, only the key valid then counts (key rotation: docs/verifying.md).
  const sigOk = signer !== undefined && (signedAt === undefined || (signedAt >= signer.validFrom && (signer.validUntil === null || signedAt < signer.validUntil)));
  const checks = { sha256: hashOk, signature: sigOk };
  if (hashOk && sigOk) return { valid: true, checks, signer };
  const reason = !hashOk && !sigOk
    ? 'sha256 does not match the canonical record and the signature does not verify'
    : !hashOk
      ? 'sha256 does not match the canonical record'
      : `signature does not verify against the ${family} public key${signedAt === undefined ? '' : ` valid at ${signedAt}`}`;
  return { valid: false, checks, reason };
}
