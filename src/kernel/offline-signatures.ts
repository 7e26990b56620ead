import { createPublicKey, verify as verifySignature } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { isWeakPublicKey } from '../signing/rfc8032.ts';
import { nobleSecp256k1 } from './noble-secp256k1.ts';

/**
 * Offline signature checks shared by the engines: Ed25519 (raw key, did:key) and EIP-191
 * personal_sign recovery. Deterministic: verification only, never key or nonce generation.
 */

export type SignatureScheme = 'ed25519' | 'eip191';

/** EIP-191 version 0x45 (personal_sign): keccak256("\x19Ethereum Signed Message:\n" + byte length + message). */
export function eip191Digest(message: string): Uint8Array {
  const body = Buffer.from(message, 'utf8');
  return keccak_256(Buffer.concat([Buffer.from(`\x19Ethereum Signed Message:\n${body.length}`, 'utf8'), body]));
}

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/**
 * How far a signed proof's `signed_at` may be from the service's clock, either way: a proof
 * captured from one call goes stale instead of serving whoever holds it later.
 */
export const SIGNED_PROOF_WINDOW_SECONDS = 300;

export function isWithinProofWindow(signedAt: number, now: number): boolean {
  return Math.abs(now - signedAt) <= SIGNED_PROOF_WINDOW_SECONDS;
}

/** Why a proof signed at `signedAt` is outside the window at `now`, or undefined when it is inside: the one wording of every stale-proof refusal. */
export function outsideProofWindow(signedAt: number, now: number): string | undefined {
  if (isWithinProofWindow(signedAt, now)) return undefined;
  return `${signedAt} is ${Math.abs(now - signedAt)} s from the service's clock (${now}); a proof counts within ${SIGNED_PROOF_WINDOW_SECONDS} s either way`;
}

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** multicodec varint of ed25519-pub (0xed), as it prefixes a did:key's public key. */
const ED25519_MULTICODEC = [0xed, 0x01] as const;
const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX = /^(0x)?([0-9a-fA-F]{2})*$/;

/**
 * Hex (with or without 0x) or base64/base64url -> exactly `length` bytes; undefined otherwise.
 * Both readings are tried because a short base64 text can also be valid hex.
 */
export function decodeBinary(text: string, length: number): Uint8Array | undefined {
  if (text.length > 0 && HEX.test(text)) {
    const bytes = Buffer.from(text.replace(/^0x/, ''), 'hex');
    if (bytes.length === length) return bytes;
  }
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) {
    const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === length) return bytes;
  }
  return undefined;
}

/** Bitcoin-alphabet base58 (multibase 'z'); undefined on a character outside the alphabet. */
export function decodeBase58(text: string): Uint8Array | undefined {
  let value = 0n;
  for (const char of text) {
    const digit = BASE58_ALPHABET.indexOf(char);
    if (digit < 0) return undefined;
    value = value * 58n + BigInt(digit);
  }
  const bytes: number[] = [];
  while (value > 0n) {
    bytes.unshift(Number(value % 256n));
    value /= 256n;
  }
  // Each leading '1' stands for one leading zero byte.
  for (const char of text) {
    if (char !== '1') break;
    bytes.unshift(0);
  }
  return Uint8Array.from(bytes);
}

/** did:key:z6Mk... -> the raw 32-byte Ed25519 public key, or why it is not one. */
export function ed25519KeyOfDidKey(did: string): { key: Uint8Array } | { reason: string } {
  const match = /^did:key:z([1-9A-HJ-NP-Za-km-z]+)$/.exec(did);
  if (!match) return { reason: 'not a base58btc did:key' };
  const bytes = decodeBase58(match[1]!);
  if (!bytes || bytes.length !== 34 || bytes[0] !== ED25519_MULTICODEC[0] || bytes[1] !== ED25519_MULTICODEC[1]) {
    return { reason: 'did:key does not carry an Ed25519 public key (multicodec 0xed01, 32 bytes)' };
  }
  return { key: bytes.subarray(2) };
}

/** A raw Ed25519 public key in hex or base64 (32 bytes), or a did:key; undefined otherwise. */
export function ed25519KeyOf(identifier: string): Uint8Array | undefined {
  if (identifier.startsWith('did:key:')) {
    const parsed = ed25519KeyOfDidKey(identifier);
    return 'key' in parsed ? parsed.key : undefined;
  }
  return decodeBinary(identifier, 32);
}

export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signatureText: string): SignatureCheck {
  const signature = decodeBinary(signatureText, 64);
  if (!signature) return { ok: false, reason: 'signature is not 64 bytes of hex or base64' };
  if (isWeakPublicKey(publicKey)) return { ok: false, reason: 'public key is of small order or not canonically encoded: a signature under it proves nothing (any message can be made to verify)' };
  try {
    const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
    return verifySignature(null, message, key, signature) ? { ok: true } : { ok: false, reason: 'Ed25519 signature does not verify' };
  } catch {
    return { ok: false, reason: 'public key is not a valid Ed25519 point' };
  }
}

/** The address an EIP-191 personal_sign signature over `message` recovers to (lowercase). */
export function recoverEip191Address(message: string, signatureText: string): { address: string } | { reason: string } {
  const signature = decodeBinary(signatureText, 65);
  if (!signature) return { reason: 'signature is not 65 bytes (r, s, v)' };
  return recoverDigestSigner(eip191Digest(message), signature);
}

/**
 * The lowercase 0x address whose key made the 65-byte signature (r, s, v; v 0/1 or 27/28) over a
 * 32-byte digest, or why there is none. Either form of the signature (s or n - s with the other
 * v) recovers the same address.
 */
export function recoverDigestSigner(digest: Uint8Array, signature: Uint8Array): { address: string } | { reason: string } {
  if (signature.length !== 65) return { reason: 'signature is not 65 bytes (r, s, v)' };
  const v = signature[64]!;
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) return { reason: `signature has an invalid recovery byte ${v}` };
  const recovered = new Uint8Array(65);
  recovered[0] = recovery;
  recovered.set(signature.subarray(0, 64), 1);
  try {
    const curve = nobleSecp256k1();
    const compressed = curve.recoverPublicKey(recovered, digest, { prehash: false });
    const uncompressed = curve.Point.fromBytes(compressed).toBytes(false);
    const address = Buffer.from(keccak_256(uncompressed.subarray(1)).subarray(12)).toString('hex');
    return { address: `0x${address}` };
  } catch {
    return { reason: 'signature does not recover to any public key' };
  }
}

export function verifyEip191(address: string, message: string, signatureText: string): SignatureCheck {
  const recovered = recoverEip191Address(message, signatureText);
  if ('reason' in recovered) return { ok: false, reason: recovered.reason };
  return recovered.address === address.toLowerCase()
    ? { ok: true }
    : { ok: false, reason: `EIP-191 signature recovers to ${recovered.address}, not ${address.toLowerCase()}` };
}

/**
 * Checks a signature by `signer` over `message`: an EVM address is checked with EIP-191, an
 * Ed25519 key (hex, base64 or did:key) with Ed25519 over the UTF-8 message.
 */
export function verifyBySigner(signer: string, message: string, signature: string): SignatureCheck & { scheme?: SignatureScheme } {
  if (EVM_ADDRESS.test(signer)) return { ...verifyEip191(signer, message, signature), scheme: 'eip191' };
  const key = ed25519KeyOf(signer);
  if (!key) return { ok: false, reason: 'signer is neither an EVM address nor an Ed25519 public key (hex, base64 or did:key)' };
  return { ...verifyEd25519(key, Buffer.from(message, 'utf8'), signature), scheme: 'ed25519' };
}
