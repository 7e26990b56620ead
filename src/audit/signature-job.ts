import { sha256Hex } from '../signing/hash.ts';
import { verifyEd25519 } from '../signing/rfc8032.ts';
import { canonicalBytes, type JsonValue } from '../signing/rfc8785.ts';

/** One signed result to re-check with public keys only: what a worker thread receives. */
export interface SignatureJob {
  record: JsonValue;
  sha256: string;
  signature: string;
  /** The family's public keys (hex) whose window holds the signing time; any may have signed. */
  publicKeys: string[];
}

export interface SignatureVerdict {
  sha256: boolean;
  signature: boolean;
  /** Set when the record has no canonical form. */
  reason?: string;
}

/**
 * Re-checks a result as an outside auditor can, holding no secret: the record re-canonicalised
 * (RFC 8785) and hashed, and the Ed25519 signature verified over those bytes, never over the
 * supplied digest. The verdict is node:crypto's; libsodium gives most of it faster (rfc8032.ts).
 */
export function verifySignatureJob(job: SignatureJob): SignatureVerdict {
  let bytes: Buffer;
  try {
    bytes = canonicalBytes(job.record);
  } catch (err) {
    return { sha256: false, signature: false, reason: `record cannot be canonicalised: ${(err as Error).message}` };
  }
  const signature = /^[0-9a-f]{128}$/.test(job.signature) ? Buffer.from(job.signature, 'hex') : undefined;
  return {
    sha256: sha256Hex(bytes) === job.sha256,
    signature: signature !== undefined && job.publicKeys.some((hex) => verifyEd25519(bytes, signature, hex)),
  };
}
