import { hash } from 'node:crypto';
import { canonicalBytes } from './rfc8785.ts';

/** One-shot (no Hash object): it runs several times per paid call. */
export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

/** SHA-256 over the RFC 8785 form: the digest every signed record and hash chain uses. */
export function canonicalSha256(value: unknown): string {
  return sha256Hex(canonicalBytes(value));
}
