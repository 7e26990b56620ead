import { canonicalBytes, type JsonObject, type JsonValue } from '../signing/rfc8785.ts';
import { sha256Hex } from '../signing/hash.ts';
import { verifyEd25519 } from '../signing/rfc8032.ts';
import { isJsonObject } from './json.ts';

/** Ed25519 over a message with a raw 32-byte public key in hex, node:crypto's verdict (rfc8032.ts); false on any malformed part. */
export function ed25519Verifies(publicKeyHex: string, message: Uint8Array, signatureHex: string): boolean {
  if (!/^[0-9a-fA-F]{128}$/.test(signatureHex)) return false;
  try {
    return verifyEd25519(message, Buffer.from(signatureHex, 'hex'), publicKeyHex);
  } catch {
    return false;
  }
}

/** The members a signed response carries beside its record. */
export const ENVELOPE_MEMBERS = ['sha256', 'ed25519Sig', 'keyId', 'publicKeyUrl', 'verifyUrl'] as const;
const SIGNED_MEMBERS = ['evidenceCore', 'sealed', 'receipt', 'verdictCore'];


/**
 * The record a signed response was signed over: the member named by the hint; else the one
 * conventional signed member when the body holds nothing else but the envelope; else the body
 * without its envelope members (records returned at the top level).
 */
export function signedRecordOf(body: JsonObject, signedMember?: string): JsonValue | undefined {
  if (signedMember) return body[signedMember];
  const rest = Object.keys(body).filter((k) => !(ENVELOPE_MEMBERS as readonly string[]).includes(k));
  if (rest.length === 1 && SIGNED_MEMBERS.includes(rest[0]!) && isJsonObject(body[rest[0]!])) return body[rest[0]!];
  return Object.fromEntries(rest.map((k) => [k, body[k]!]));
}

export interface SignedRecordCheck {
  valid: boolean;
  sha256: boolean;
  signature: boolean;
  reason?: string;
}

export function checkSignedRecord(record: JsonValue, sha256: string, signatureHex: string, publicKeyHex: string): SignedRecordCheck {
  let bytes: Buffer;
  try {
    bytes = canonicalBytes(record);
  } catch (err) {
    return { valid: false, sha256: false, signature: false, reason: `record cannot be canonicalised: ${(err as Error).message}` };
  }
  const hashOk = sha256Hex(bytes) === sha256;
  const sigOk = ed25519Verifies(publicKeyHex, bytes, signatureHex);
  if (hashOk && sigOk) return { valid: true, sha256: true, signature: true };
  const reason = !hashOk && !sigOk ? 'sha256 does not match and the signature does not verify' : !hashOk ? 'sha256 does not match the canonical record' : 'the Ed25519 signature does not verify with the supplied public key';
  return { valid: false, sha256: hashOk, signature: sigOk, reason };
}
