/**
 * Digests arrive as hex (content hashes computed with sha256sum and friends) or as base64 (the
 * form C2PA manifests print). Both are read strictly: a string that decodes to the wrong length
 * is not a digest of that algorithm, whatever else it might be.
 */
export const SUPPORTED_DIGEST_ALGORITHMS = { sha256: 32, sha384: 48, sha512: 64 } as const;
export type DigestAlgorithm = keyof typeof SUPPORTED_DIGEST_ALGORITHMS;

export function isSupportedAlgorithm(alg: string): alg is DigestAlgorithm {
  return Object.hasOwn(SUPPORTED_DIGEST_ALGORITHMS, alg);
}

/** "SHA-256", "sha_256" and "sha256" name one algorithm; C2PA writes the last form. */
export function normaliseAlgorithmName(alg: string): string {
  return alg.toLowerCase().replace(/[-_\s]/g, '');
}

const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard or URL-safe base64, padded or not; undefined when the text is not base64. */
export function decodeBase64(text: string): Buffer | undefined {
  if (text.length === 0) return undefined;
  const standard = text.replace(/-/g, '+').replace(/_/g, '/');
  const padded = standard.padEnd(standard.length + ((4 - (standard.length % 4)) % 4), '=');
  if (!STANDARD_BASE64.test(padded)) return undefined;
  return Buffer.from(padded, 'base64');
}

export interface DecodedDigest {
  bytes: Buffer;
  encoding: 'hex' | 'base64';
}

/**
 * Hex is tried first, and only at exactly twice the digest length; otherwise base64 that decodes
 * to exactly the digest length. Given the algorithm the two cannot be confused: a hex digest of
 * one length is never a base64 digest of the same algorithm.
 */
export function decodeDigest(value: string, alg: DigestAlgorithm): DecodedDigest | undefined {
  const length = SUPPORTED_DIGEST_ALGORITHMS[alg];
  if (value.length === length * 2 && /^[0-9a-fA-F]+$/.test(value)) return { bytes: Buffer.from(value, 'hex'), encoding: 'hex' };
  const bytes = decodeBase64(value);
  return bytes && bytes.length === length ? { bytes, encoding: 'base64' } : undefined;
}

/** Byte-array form (serde bytes as JSON numbers), as some C2PA reports print hashes. */
export function bytesFromNumberArray(value: readonly unknown[]): Buffer | undefined {
  if (!value.every((b) => typeof b === 'number' && Number.isInteger(b) && b >= 0 && b <= 255)) return undefined;
  return Buffer.from(value as number[]);
}
