import { createHash } from 'node:crypto';
import { base58 } from '@scure/base';
import { canonicalBytes } from '../signing/rfc8785.ts';
import type { JsonObject, JsonValue } from '../signing/rfc8785.ts';

/**
 * W3C Data Integrity EdDSA Cryptosuites v1.0, the eddsa-jcs-2022 suite: the proof configuration
 * and the document (without its proof) are each canonicalised with RFC 8785 and hashed with
 * SHA-256; the Ed25519 signature covers proofConfigHash || documentHash; the proof value is
 * multibase base58-btc ("z..."). Keys travel as Multikey: 0xed 0x01 then the 32-byte key.
 */
export const CRYPTOSUITE = 'eddsa-jcs-2022';
const ED25519_MULTICODEC = Uint8Array.of(0xed, 0x01);

export interface ProofOptions {
  verificationMethod: string;
  /** XML Schema dateTime, e.g. 2026-11-24T12:00:00Z. */
  created: string;
  proofPurpose?: string;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();

export function multikeyOf(publicKey: Uint8Array): string {
  return `z${base58.encode(new Uint8Array([...ED25519_MULTICODEC, ...publicKey]))}`;
}

export function publicKeyOfMultikey(multikey: string): Uint8Array {
  if (!multikey.startsWith('z')) throw new Error('a Multikey is multibase base58-btc ("z...")');
  const bytes = base58.decode(multikey.slice(1));
  if (bytes.length !== 34 || bytes[0] !== 0xed || bytes[1] !== 0x01) throw new Error('not an Ed25519 Multikey');
  return bytes.slice(2);
}

/** did:key of an Ed25519 key, and its one verification method. */
export function didKeyOf(publicKey: Uint8Array): { did: string; verificationMethod: string } {
  const multikey = multikeyOf(publicKey);
  return { did: `did:key:${multikey}`, verificationMethod: `did:key:${multikey}#${multikey}` };
}

function proofConfigOf(document: JsonObject, options: ProofOptions): JsonObject {
  const config: JsonObject = { type: 'DataIntegrityProof', cryptosuite: CRYPTOSUITE, created: options.created, verificationMethod: options.verificationMethod, proofPurpose: options.proofPurpose ?? 'assertionMethod' };
  // The suite copies the document's context into the proof configuration it signs.
  if (document['@context'] !== undefined) config['@context'] = document['@context'];
  return config;
}

function hashData(document: JsonObject, proofConfig: JsonObject): Buffer {
  return Buffer.concat([sha256(canonicalBytes(proofConfig)), sha256(canonicalBytes(document))]);
}

/** Adds a proof to an unsecured document, signing with `sign` (Ed25519 over the hash data). */
export function addProof(document: JsonObject, options: ProofOptions, sign: (message: Uint8Array) => Uint8Array): JsonObject {
  const config = proofConfigOf(document, options);
  const signature = sign(hashData(document, config));
  return { ...document, proof: { ...config, proofValue: `z${base58.encode(signature)}` } };
}

export type ProofCheck = { verified: true; verificationMethod: string } | { verified: false; reason: string };

/**
 * Verifies a secured document's eddsa-jcs-2022 proof. `publicKeyOf` resolves the verification
 * method to a raw Ed25519 key (a did:key resolves by decoding it: didKeyResolver).
 */
export function verifyProof(secured: JsonObject, publicKeyOf: (verificationMethod: string) => Uint8Array | undefined, verify: (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean): ProofCheck {
  const proof = secured['proof'];
  if (!isObject(proof)) return { verified: false, reason: 'no proof' };
  const { proofValue, ...config } = proof;
  if (config['type'] !== 'DataIntegrityProof' || config['cryptosuite'] !== CRYPTOSUITE) return { verified: false, reason: `not a DataIntegrityProof with cryptosuite ${CRYPTOSUITE}` };
  if (typeof proofValue !== 'string' || !proofValue.startsWith('z')) return { verified: false, reason: 'proofValue is not multibase base58-btc' };
  const { proof: _proof, ...document } = secured;
  if (document['@context'] !== undefined && JSON.stringify(document['@context']) !== JSON.stringify(config['@context']))
    return { verified: false, reason: "the proof's @context is not the document's" };
  const method = config['verificationMethod'];
  const publicKey = typeof method === 'string' ? publicKeyOf(method) : undefined;
  if (!publicKey) return { verified: false, reason: `cannot resolve the verification method ${String(method)}` };
  let signature: Uint8Array;
  try {
    signature = base58.decode(proofValue.slice(1));
  } catch {
    return { verified: false, reason: 'proofValue is not base58-btc' };
  }
  if (!verify(publicKey, hashData(document, config), signature)) return { verified: false, reason: 'the signature does not verify' };
  return { verified: true, verificationMethod: method as string };
}

/** Resolves did:key:z6Mk...#z6Mk... to its Ed25519 key, offline. */
export function didKeyResolver(verificationMethod: string): Uint8Array | undefined {
  const match = /^did:key:(z[1-9A-HJ-NP-Za-km-z]+)#(z[1-9A-HJ-NP-Za-km-z]+)$/.exec(verificationMethod);
  if (!match || match[1] !== match[2]) return undefined;
  try {
    return publicKeyOfMultikey(match[1]!);
  } catch {
    return undefined;
  }
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
