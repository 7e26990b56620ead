import { createRequire } from 'node:module';
import { verify as nodeVerify, type KeyObject } from 'node:crypto';
import { publicKeyFromHex } from './keyring.ts';

/**
 * Ed25519 verification (RFC 8032) for checking many signatures, as the audit does: libsodium
 * (the `sodium-native` package, its prebuilt binary inside the package) verifies in about half
 * the time of node:crypto's OpenSSL on the machines measured (docs/benchmarks.md).
 *
 * The verdict is node:crypto's for every input, whichever library answers. libsodium accepts a
 * subset of what OpenSSL accepts: both check S < L and compare the encoding of [S]B - [k]A with
 * R, and libsodium also refuses small-order or non-canonical keys and small-order R. So its
 * acceptance is final, and its refusal is asked of node:crypto again: only an invalid signature
 * (rare in a real log) pays for two verifications, and an audit's answer never depends on which
 * library loaded on the auditor's machine.
 */
interface Libsodium {
  crypto_sign_verify_detached(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
}

export type Ed25519Verify = (message: Uint8Array, signature: Uint8Array, publicKeyHex: string) => boolean;

const SIGNATURE_BYTES = 64;
const PUBLIC_KEY_HEX = /^[0-9a-fA-F]{64}$/;

function loadLibsodium(): Libsodium | undefined {
  try {
    return createRequire(import.meta.url)('sodium-native') as Libsodium;
  } catch {
    return undefined;
  }
}

const keyObjects = new Map<string, KeyObject>();
const rawKeys = new Map<string, Buffer>();

function keyObjectOf(hex: string): KeyObject {
  let key = keyObjects.get(hex);
  if (!key) {
    key = publicKeyFromHex(hex);
    keyObjects.set(hex, key);
  }
  return key;
}

function rawKeyOf(hex: string): Buffer {
  let key = rawKeys.get(hex);
  if (!key) {
    key = Buffer.from(hex, 'hex');
    rawKeys.set(hex, key);
  }
  return key;
}

/** node:crypto (OpenSSL) alone: the reference verdict. */
export const verifyWithNodeCrypto: Ed25519Verify = (message, signature, publicKeyHex) =>
  signature.length === SIGNATURE_BYTES && PUBLIC_KEY_HEX.test(publicKeyHex) && nodeVerify(null, message, keyObjectOf(publicKeyHex), signature);

/** libsodium first, node:crypto for what it refuses; node:crypto alone when libsodium cannot load here. */
export function ed25519Verifier(libsodium: Libsodium | undefined): Ed25519Verify {
  if (!libsodium) return verifyWithNodeCrypto;
  return (message, signature, publicKeyHex) => {
    if (signature.length !== SIGNATURE_BYTES || !PUBLIC_KEY_HEX.test(publicKeyHex)) return false;
    return libsodium.crypto_sign_verify_detached(signature, message, rawKeyOf(publicKeyHex)) || nodeVerify(null, message, keyObjectOf(publicKeyHex), signature);
  };
}

const libsodium = loadLibsodium();
export const ed25519VerifyBackend: 'libsodium' | 'node:crypto' = libsodium ? 'libsodium' : 'node:crypto';
export const verifyEd25519: Ed25519Verify = ed25519Verifier(libsodium);
