import { keccak_256 } from '@noble/hashes/sha3.js';
import { createHash } from 'node:crypto';
import { ed25519Verifies } from '../../../kernel/signed-record.ts';
import { decodeUtf8, describeIllFormed } from '../../../kernel/rfc3629.ts';
import { parseIJson } from '../../../kernel/rfc7493.ts';
import { MAX_JSON_DEPTH } from '../../../kernel/json.ts';
import { nobleSecp256k1 } from '../../../kernel/noble-secp256k1.ts';
import { recoverDigestSigner } from '../../../kernel/offline-signatures.ts';

/**
 * Signature checks of the x402 offer-and-receipt extension (v1.0): EIP-712 typed data over
 * fixed types and domains, and compact JWS (EdDSA or ES256K). Hand-rolled over @noble so the
 * engine stays pure; the unit tests cross-check against the extension's own signers.
 */
type Field = readonly [name: string, type: 'string' | 'uint256'];
const OFFER_FIELDS: readonly Field[] = [['version', 'uint256'], ['resourceUrl', 'string'], ['scheme', 'string'], ['network', 'string'], ['asset', 'string'], ['payTo', 'string'], ['amount', 'string'], ['validUntil', 'uint256']];
const RECEIPT_FIELDS: readonly Field[] = [['version', 'uint256'], ['network', 'string'], ['resourceUrl', 'string'], ['payer', 'string'], ['issuedAt', 'uint256'], ['transaction', 'string']];
const DOMAINS = { offer: { name: 'x402 offer', primaryType: 'Offer', fields: OFFER_FIELDS }, receipt: { name: 'x402 receipt', primaryType: 'Receipt', fields: RECEIPT_FIELDS } } as const;

const utf8 = (s: string) => new TextEncoder().encode(s);
const keccak = (...parts: Uint8Array[]) => keccak_256(Buffer.concat(parts));
function uint256(value: bigint): Uint8Array {
  if (value < 0n || value >= 2n ** 256n) throw new RangeError('uint256 out of range');
  return Buffer.from(value.toString(16).padStart(64, '0'), 'hex');
}

function domainSeparator(name: string): Uint8Array {
  return keccak(keccak(utf8('EIP712Domain(string name,string version,uint256 chainId)')), keccak(utf8(name)), keccak(utf8('1')), uint256(1n));
}

/** The EIP-712 digest of an offer or receipt payload; undefined when a member has the wrong type. */
export function typedDataDigest(artefact: 'offer' | 'receipt', payload: Record<string, unknown>): Uint8Array | undefined {
  const d = DOMAINS[artefact];
  const typeString = `${d.primaryType}(${d.fields.map(([n, t]) => `${t} ${n}`).join(',')})`;
  const encoded: Uint8Array[] = [keccak(utf8(typeString))];
  for (const [name, type] of d.fields) {
    const v = payload[name] ?? (type === 'string' ? '' : 0);
    if (type === 'string') {
      if (typeof v !== 'string') return undefined;
      encoded.push(keccak(utf8(v)));
    } else {
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) return undefined;
      encoded.push(uint256(BigInt(v)));
    }
  }
  return keccak(Uint8Array.of(0x19, 0x01), domainSeparator(d.name), keccak(...encoded));
}

/** The lowercase 0x address that signed the digest, or undefined for a malformed signature. */
export function recoverAddress(digest: Uint8Array, signatureHex: string): string | undefined {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signatureHex)) return undefined;
  const recovered = recoverDigestSigner(digest, Buffer.from(signatureHex.slice(2), 'hex'));
  return 'address' in recovered ? recovered.address : undefined;
}

export interface JwsParts {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  signingInput: Uint8Array;
  signature: Buffer;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The payload is carried into the signed record one level down: deeper than this, the record
 * would nest beyond what the bureau's own verify route accepts.
 */
const MAX_PART_DEPTH = MAX_JSON_DEPTH - 1;

/** A JWS part as a JSON object, or why it is not one the bureau can carry exactly. */
function readPart(name: 'header' | 'payload', part: string): { value: Record<string, unknown> } | { defect: string } {
  // RFC 7515: the header and payload here are UTF-8 JSON; other bytes make no JWS of this kind.
  const decoded = decodeUtf8(Buffer.from(part, 'base64url'));
  if (!decoded.ok) return { defect: `the JWS ${name} is not UTF-8: ${describeIllFormed(decoded)}` };
  // I-JSON, not JSON.parse: 1e400 read as Infinity could not be signed, 1e-400 read as 0 and
  // integers beyond 2^53 rounded would be sealed as what the issuer never signed, and a lone
  // surrogate or __proto__ member would make a record the verify route refuses. RFC 7515
  // section 4 lets a parser reject a header with a duplicate name.
  const parsed = parseIJson(decoded.text, MAX_PART_DEPTH);
  if (!parsed.ok) {
    if (parsed.malformed) return { defect: `the JWS ${name} is not JSON` };
    if (parsed.path === '(root)') return { defect: `the JWS ${name} ${parsed.reason}` };
    return { defect: `the JWS ${name} is not I-JSON (RFC 7493), so it cannot be carried exactly: ${parsed.path}: ${parsed.reason}` };
  }
  return isObject(parsed.value) ? { value: parsed.value } : { defect: `the JWS ${name} is not a JSON object` };
}

/** A compact JWS split and read, or the defect that makes it none the check can read. */
export function parseCompactJws(jws: string): { ok: true; jws: JwsParts } | { ok: false; defect: string } {
  const parts = jws.split('.');
  if (parts.length !== 3 || !parts.every((p) => /^[A-Za-z0-9_-]*$/.test(p))) return { ok: false, defect: 'signature is not a compact JWS (header.payload.signature)' };
  const header = readPart('header', parts[0]!);
  if ('defect' in header) return { ok: false, defect: header.defect };
  const payload = readPart('payload', parts[1]!);
  if ('defect' in payload) return { ok: false, defect: payload.defect };
  return { ok: true, jws: { header: header.value, payload: payload.value, signingInput: utf8(`${parts[0]}.${parts[1]}`), signature: Buffer.from(parts[2]!, 'base64url') } };
}

/** JWS verification with a supplied raw public key in hex: EdDSA (32 bytes) or ES256K (33 or 65 bytes). */
export function jwsVerifies(jws: JwsParts, publicKeyHex: string): { ok: boolean; reason?: string } {
  const alg = jws.header.alg;
  if (alg === 'EdDSA') {
    const ok = ed25519Verifies(publicKeyHex, jws.signingInput, jws.signature.toString('hex'));
    return ok ? { ok } : { ok, reason: 'the EdDSA signature does not verify with the supplied key' };
  }
  if (alg === 'ES256K') {
    try {
      const digest = createHash('sha256').update(jws.signingInput).digest();
      const ok = jws.signature.length === 64 && nobleSecp256k1().verify(jws.signature, digest, Buffer.from(publicKeyHex, 'hex'), { prehash: false, lowS: false });
      return ok ? { ok } : { ok, reason: 'the ES256K signature does not verify with the supplied key' };
    } catch {
      return { ok: false, reason: 'the supplied key is not a secp256k1 public key' };
    }
  }
  return { ok: false, reason: `JWS alg ${String(alg)} is not checked by this standard (EdDSA, ES256K)` };
}
