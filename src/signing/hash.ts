import { hash } from 'node:crypto';
import { canonicalText } from './rfc8785.ts';

/** One-shot (no Hash object): it runs several times per paid call. */
export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

/**
 * SHA-256 over the RFC 8785 form: the digest every signed record and hash chain uses. The text
 * is hashed as it is: node:crypto encodes a string as UTF-8 exactly as Buffer.from does (lone
 * surrogates as U+FFFD included), and skipping the intermediate buffer halves the cost of the
 * hash of a small value (each paid call makes one, its request hash).
 */
export function canonicalSha256(value: unknown): string {
  return sha256Hex(canonicalText(value));
}
