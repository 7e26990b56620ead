import { createHash } from 'node:crypto';
import { canonicalBytes } from './canonical.ts';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** SHA-256 over the RFC 8785 form: the digest every signed record and hash chain uses. */
export function canonicalSha256(value: unknown): string {
  return sha256Hex(canonicalBytes(value));
}
