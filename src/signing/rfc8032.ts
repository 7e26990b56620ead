import { createRequire } from 'node:module';
import { createPublicKey, sign as nodeSign, verify as nodeVerify, type KeyObject } from 'node:crypto';

/**
 * Ed25519 (RFC 8032) where a paid call and an audit spend their time: libsodium (the
 * `sodium-native` package, its prebuilt binary inside the package) signs and verifies in about
 * half the time of node:crypto's OpenSSL on the machines measured (docs/benchmarks.md), and
 * node:crypto does it all where libsodium cannot load.
 *
 * Signing gives the same bytes whichever library signs: an Ed25519 signature is a function of the
 * key and the message alone (RFC 8032, 5.1.6).
 *
 * The verdict of a verification is the same whichever library answers: node:crypto's, except
 * that a weak public key (isWeakPublicKey: of small order, or not canonically encoded) verifies
 * nothing. OpenSSL accepts such keys, and against the identity as key the identity as R with S = 0
 * "verifies" any message, so a caller could present signatures no one made. libsodium accepts a
 * subset of what OpenSSL accepts: both check S < L and compare the encoding of [S]B - [k]A with
 * R, and libsodium also refuses weak keys and small-order R. So its acceptance is final, and its
 * refusal is asked of node:crypto again: only an invalid signature (rare in a real log) pays for
 * two verifications, and an audit's answer never depends on which library loaded on the
 * auditor's machine.
 */
export interface Libsodium {
  crypto_sign_verify_detached(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
  crypto_sign_detached(signature: Uint8Array, message: Uint8Array, secretKey: Uint8Array): void;
  crypto_sign_seed_keypair(publicKey: Uint8Array, secretKey: Uint8Array, seed: Uint8Array): void;
}

export type Ed25519Verify = (message: Uint8Array, signature: Uint8Array, publicKeyHex: string) => boolean;
export type Ed25519Sign = (message: Uint8Array) => Buffer;

const SIGNATURE_BYTES = 64;
const PUBLIC_KEY_HEX = /^[0-9a-fA-F]{64}$/;
/** DER of an Ed25519 SubjectPublicKeyInfo (RFC 8410) before its 32 raw bytes. */
export const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

const FIELD_P = (1n << 255n) - 19n;
/** y of the points of order 8 (x's sign aside); the points of order 1, 2 and 4 have y = 1, p - 1 and 0. */
const ORDER_8_Y = 2707385501144840649318225287225658788936804267575313519463743609750303402022n;
const SMALL_ORDER_Y = new Set([0n, 1n, FIELD_P - 1n, ORDER_8_Y, FIELD_P - ORDER_8_Y]);

/**
 * A public key no honest key pair has: a point of small order (order 1, 2, 4 or 8, whatever the
 * sign bit of x), or y not below p (a non-canonical encoding). The same rule libsodium applies
 * before it verifies (RFC 8032, 5.1.7, leaves it to the implementation; OpenSSL does not apply it).
 */
export function isWeakPublicKey(raw: Uint8Array): boolean {
  if (raw.length !== 32) return true;
  let y = BigInt(raw[31]! & 0x7f);
  for (let i = 30; i >= 0; i--) y = (y << 8n) | BigInt(raw[i]!);
  return y >= FIELD_P || SMALL_ORDER_Y.has(y);
}

/** node:crypto's key object of a raw 32-byte Ed25519 public key in hex. */
export function publicKeyFromHex(hex: string): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(hex, 'hex')]), format: 'der', type: 'spki' });
}

function loadLibsodium(): Libsodium | undefined {
  try {
    return createRequire(import.meta.url)('sodium-native') as Libsodium;
  } catch {
    return undefined;
  }
}

/**
 * Keys verified with lately, by hex, with node:crypto's key object once one was needed (making
 * one costs about as much as a verification). At most KEYS_KEPT: besides the service's own keys,
 * callers bring keys of their own (a signed record's issuer), and these must not pile up.
 */
const KEYS_KEPT = 256;
const keys = new Map<string, { raw: Buffer; weak: boolean; object?: KeyObject }>();

function keyOf(hex: string): { raw: Buffer; weak: boolean; object?: KeyObject } {
  let key = keys.get(hex);
  if (!key) {
    if (keys.size >= KEYS_KEPT) keys.clear();
    const raw = Buffer.from(hex, 'hex');
    key = { raw, weak: isWeakPublicKey(raw) };
    keys.set(hex, key);
  }
  return key;
}

const keyObjectOf = (hex: string): KeyObject => {
  const key = keyOf(hex);
  return (key.object ??= publicKeyFromHex(hex));
};
const rawKeyOf = (hex: string): Buffer => keyOf(hex).raw;
const wellFormed = (signature: Uint8Array, publicKeyHex: string): boolean => signature.length === SIGNATURE_BYTES && PUBLIC_KEY_HEX.test(publicKeyHex) && !keyOf(publicKeyHex).weak;

/** node:crypto (OpenSSL) alone, weak keys refused: the reference verdict. */
export const verifyWithNodeCrypto: Ed25519Verify = (message, signature, publicKeyHex) => wellFormed(signature, publicKeyHex) && nodeVerify(null, message, keyObjectOf(publicKeyHex), signature);

/** libsodium first, node:crypto for what it refuses; node:crypto alone without libsodium. */
export function ed25519Verifier(library: Libsodium | undefined): Ed25519Verify {
  if (!library) return verifyWithNodeCrypto;
  return (message, signature, publicKeyHex) => {
    if (!wellFormed(signature, publicKeyHex)) return false;
    return library.crypto_sign_verify_detached(signature, message, rawKeyOf(publicKeyHex)) || nodeVerify(null, message, keyObjectOf(publicKeyHex), signature);
  };
}

/**
 * Signs with one key, given as its 32-byte seed and as node:crypto's key object of the same seed.
 * libsodium's secret key (the seed and the public key) is an ordinary buffer of this process, as
 * the configured secret that every seed derives from already is; libsodium's locked memory would
 * cost pages of address space and locked memory for each of the many keyrings a test run makes.
 */
export function signerWith(seed: Uint8Array, privateKey: KeyObject, library: Libsodium | undefined): Ed25519Sign {
  if (!library) return (message) => nodeSign(null, message, privateKey);
  const secretKey = Buffer.alloc(64);
  library.crypto_sign_seed_keypair(Buffer.alloc(32), secretKey, seed);
  return (message) => {
    const signature = Buffer.allocUnsafe(SIGNATURE_BYTES);
    library.crypto_sign_detached(signature, message, secretKey);
    return signature;
  };
}

let loaded: { library: Libsodium | undefined } | undefined;
/** libsodium, loaded at its first use (about 20 ms here): a start that signs nothing does not wait for it. */
export function libsodium(): Libsodium | undefined {
  return (loaded ??= { library: loadLibsodium() }).library;
}

export const ed25519Backend = (): 'libsodium' | 'node:crypto' => (libsodium() ? 'libsodium' : 'node:crypto');

let verifier: Ed25519Verify | undefined;
export const verifyEd25519: Ed25519Verify = (message, signature, publicKeyHex) => (verifier ??= ed25519Verifier(libsodium()))(message, signature, publicKeyHex);

/** signerWith() the library that loads here, chosen at the first signature. */
export function ed25519Signer(seed: Uint8Array, privateKey: KeyObject): Ed25519Sign {
  let sign: Ed25519Sign | undefined;
  return (message) => (sign ??= signerWith(seed, privateKey, libsodium()))(message);
}
